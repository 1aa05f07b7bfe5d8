/* SPDX-License-Identifier: MIT */
/* error_log message texts: the kernel's wording, which users grep for. */
#include "libhist.h"
#include "common/platform.h"

static const char *const hist_msgs[] = {
	[HIST_ERR_NONE] = "No error",
	[HIST_ERR_DUPLICATE_VAR] = "Variable already defined",
	[HIST_ERR_VAR_NOT_UNIQUE] = "Variable name not unique, need to use fully qualified name (subsys.event.var) for variable",
	[HIST_ERR_TOO_MANY_VARS] = "Too many variables defined",
	[HIST_ERR_MALFORMED_ASSIGNMENT] = "Malformed assignment",
	[HIST_ERR_NAMED_MISMATCH] = "Named hist trigger doesn't match existing named trigger (includes variables)",
	[HIST_ERR_TRIGGER_EEXIST] = "Hist trigger already exists",
	[HIST_ERR_TRIGGER_ENOENT_CLEAR] = "Can't clear or continue a nonexistent hist trigger",
	[HIST_ERR_SET_CLOCK_FAIL] = "Couldn't set trace_clock",
	[HIST_ERR_BAD_FIELD_MODIFIER] = "Invalid field modifier",
	[HIST_ERR_TOO_MANY_SUBEXPR] = "Too many subexpressions (3 max)",
	[HIST_ERR_TIMESTAMP_MISMATCH] = "Timestamp units in expression don't match",
	[HIST_ERR_TOO_MANY_FIELD_VARS] = "Too many field variables defined",
	[HIST_ERR_EVENT_FILE_NOT_FOUND] = "Event file not found",
	[HIST_ERR_HIST_NOT_FOUND] = "Matching event histogram not found",
	[HIST_ERR_HIST_CREATE_FAIL] = "Couldn't create histogram for field",
	[HIST_ERR_SYNTH_VAR_NOT_FOUND] = "Couldn't find synthetic variable",
	[HIST_ERR_SYNTH_EVENT_NOT_FOUND] = "Couldn't find synthetic event",
	[HIST_ERR_SYNTH_TYPE_MISMATCH] = "Param type doesn't match synthetic event field type",
	[HIST_ERR_SYNTH_COUNT_MISMATCH] = "Param count doesn't match synthetic event field count",
	[HIST_ERR_FIELD_VAR_PARSE_FAIL] = "Couldn't parse field variable",
	[HIST_ERR_VAR_CREATE_FIND_FAIL] = "Couldn't create or find variable",
	[HIST_ERR_ONX_NOT_VAR] = "For onmax(x) or onchange(x), x must be a variable",
	[HIST_ERR_ONX_VAR_NOT_FOUND] = "Couldn't find onmax or onchange variable",
	[HIST_ERR_ONX_VAR_CREATE_FAIL] = "Couldn't create onmax or onchange variable",
	[HIST_ERR_FIELD_VAR_CREATE_FAIL] = "Couldn't create field variable",
	[HIST_ERR_TOO_MANY_PARAMS] = "Too many action params",
	[HIST_ERR_PARAM_NOT_FOUND] = "Couldn't find param",
	[HIST_ERR_INVALID_PARAM] = "Invalid action param",
	[HIST_ERR_ACTION_NOT_FOUND] = "No action found",
	[HIST_ERR_NO_SAVE_PARAMS] = "No params found for save()",
	[HIST_ERR_TOO_MANY_SAVE_ACTIONS] = "Can't have more than one save() action per hist",
	[HIST_ERR_ACTION_MISMATCH] = "Handler doesn't support action",
	[HIST_ERR_NO_CLOSING_PAREN] = "No closing paren found",
	[HIST_ERR_SUBSYS_NOT_FOUND] = "Missing subsystem",
	[HIST_ERR_INVALID_SUBSYS_EVENT] = "Invalid subsystem or event name",
	[HIST_ERR_INVALID_REF_KEY] = "Using variable references in keys not supported",
	[HIST_ERR_VAR_NOT_FOUND] = "Couldn't find variable",
	[HIST_ERR_FIELD_NOT_FOUND] = "Couldn't find field",
	[HIST_ERR_EMPTY_ASSIGNMENT] = "Empty assignment",
	[HIST_ERR_INVALID_SORT_MODIFIER] = "Invalid sort modifier",
	[HIST_ERR_EMPTY_SORT_FIELD] = "Empty sort field",
	[HIST_ERR_TOO_MANY_SORT_FIELDS] = "Too many sort fields (Max = 2)",
	[HIST_ERR_INVALID_SORT_FIELD] = "Sort field must be a key or a val",
	[HIST_ERR_INVALID_STR_OPERAND] = "String type can not be an operand in expression",
	[HIST_ERR_EXPECT_NUMBER] = "Expecting numeric literal",
	[HIST_ERR_UNARY_MINUS_SUBEXPR] = "Unary minus not supported in sub-expressions",
	[HIST_ERR_DIVISION_BY_ZERO] = "Division by zero",
	[HIST_ERR_NEED_NOHC_VAL] = "Non-hitcount value is required for 'nohitcount'",
};

static const char *const synth_msgs[] = {
	[HIST_SYNTH_ERR_BAD_NAME - 100] = "Illegal name",
	[HIST_SYNTH_ERR_INVALID_CMD - 100] = "Command must be of the form: <name> field[;field] ...",
	[HIST_SYNTH_ERR_INVALID_DYN_CMD - 100] = "Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
	[HIST_SYNTH_ERR_EVENT_EXISTS - 100] = "Event already exists",
	[HIST_SYNTH_ERR_TOO_MANY_FIELDS - 100] = "Too many fields",
	[HIST_SYNTH_ERR_INCOMPLETE_TYPE - 100] = "Incomplete type",
	[HIST_SYNTH_ERR_INVALID_TYPE - 100] = "Invalid type",
	[HIST_SYNTH_ERR_INVALID_FIELD - 100] = "Invalid field",
	[HIST_SYNTH_ERR_INVALID_ARRAY_SPEC - 100] = "Invalid array specification",
};

static const char *const filter_msgs[] = {
	[HIST_FILTER_ERR_NONE - 200] = "No error",
	[HIST_FILTER_ERR_INVALID_OP - 200] = "Invalid operator",
	[HIST_FILTER_ERR_TOO_MANY_OPEN - 200] = "Too many '('",
	[HIST_FILTER_ERR_TOO_MANY_CLOSE - 200] = "Too few '('",
	[HIST_FILTER_ERR_MISSING_QUOTE - 200] = "Missing matching quote",
	[HIST_FILTER_ERR_MISSING_BRACE_OPEN - 200] = "Missing '{'",
	[HIST_FILTER_ERR_MISSING_BRACE_CLOSE - 200] = "Missing '}'",
	[HIST_FILTER_ERR_OPERAND_TOO_LONG - 200] = "Operand too long",
	[HIST_FILTER_ERR_EXPECT_STRING - 200] = "Expecting string field",
	[HIST_FILTER_ERR_EXPECT_DIGIT - 200] = "Expecting numeric field",
	[HIST_FILTER_ERR_ILLEGAL_FIELD_OP - 200] = "Illegal operation for field type",
	[HIST_FILTER_ERR_FIELD_NOT_FOUND - 200] = "Field not found",
	[HIST_FILTER_ERR_ILLEGAL_INTVAL - 200] = "Illegal integer value",
	[HIST_FILTER_ERR_BAD_SUBSYS_FILTER - 200] = "Couldn't find or set field in one of a subsystem's events",
	[HIST_FILTER_ERR_TOO_MANY_PREDS - 200] = "Too many terms in predicate expression",
	[HIST_FILTER_ERR_INVALID_FILTER - 200] = "Meaningless filter expression",
	[HIST_FILTER_ERR_INVALID_CPULIST - 200] = "Invalid cpulist",
	[HIST_FILTER_ERR_IP_FIELD_ONLY - 200] = "Only 'ip' field is supported for function trace",
	[HIST_FILTER_ERR_INVALID_VALUE - 200] = "Invalid value (did you forget quotes)?",
	[HIST_FILTER_ERR_NO_FUNCTION - 200] = "Function not found",
	[HIST_FILTER_ERR_ERRNO - 200] = "Error",
	[HIST_FILTER_ERR_NO_FILTER - 200] = "No filter found",
};
const char *hist_error_text(int msg)
{
	if (msg >= 0 && msg < (int)HIST__ARRAY_SIZE(hist_msgs))
		return hist_msgs[msg];
	if (msg >= 100 && msg < 100 + (int)HIST__ARRAY_SIZE(synth_msgs))
		return synth_msgs[msg - 100];
	if (msg >= 200 && msg < 200 + (int)HIST__ARRAY_SIZE(filter_msgs))
		return filter_msgs[msg - 200];
	return "Unknown error";
}
