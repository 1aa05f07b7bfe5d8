/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hist_relloc:hist_relloc_name, one record per write to the module's
 * "fire" parameter: the written name as a __rel_loc string (rname), the
 * same as a __data_loc string (dname) and its length.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hist_relloc

#if !defined(HIST_RELLOC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define HIST_RELLOC_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

/* 6.10 takes the source of a string field from its declaration */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define HIST_RELLOC_ASSIGN(rel, data, src)	\
	do { __assign_rel_str(rel); __assign_str(data); } while (0)
#else
#define HIST_RELLOC_ASSIGN(rel, data, src)	\
	do { __assign_rel_str(rel, src); __assign_str(data, src); } while (0)
#endif

TRACE_EVENT(hist_relloc_name,
	TP_PROTO(const char *name, int len),
	TP_ARGS(name, len),
	TP_STRUCT__entry(
		__field(int, len)
		__rel_string(rname, name)
		__string(dname, name)
	),
	TP_fast_assign(
		__entry->len = len;
		HIST_RELLOC_ASSIGN(rname, dname, name);
	),
	TP_printk("len=%d rname=%s dname=%s", __entry->len,
		  __get_rel_str(rname), __get_str(dname))
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hist_relloc_trace
#include <trace/define_trace.h>
