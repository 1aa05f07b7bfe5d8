/* SPDX-License-Identifier: MIT */
/*
 * libhist as a user installs it: `make install DESTDIR=... PREFIX=/usr`
 * into a temporary root, then, as an outside project would,
 *   - pkg-config (PKG_CONFIG_SYSROOT_DIR, PKG_CONFIG_PATH) gives the flags,
 *     and a C program and a C++ program build against the static and the
 *     shared libhist (and libhist-ftrace) and run;
 *   - the shared libraries carry their sonames and export exactly the
 *     functions their headers declare (and src/pkg/abi-check.sh notices when
 *     a header and its version script disagree);
 *   - every public function has a man page, and every section 3 page's
 *     EXAMPLE compiles, links against the installed library and runs; the
 *     section 1 pages list only options the tools have, and hist-replay's
 *     examples run;
 *   - `make uninstall` leaves no file behind.
 *
 * Run from the repository root (make check does).  HIST_CC and HIST_SAN
 * (set by `make check`) are the compiler and sanitizer flags of the build.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"
#include "libhist.h"

static char tmp[256], root[300], build[512], cc[256], san[512];
static char flags_c[2048], libs_shared[2048], libs_static[2048];
static char ftrace_shared[2048], ftrace_static[2048];
static int have_pkgconfig, installed;

#include "test_shell.h"

/* The output of the last sh(), malloc'ed. */
static char *out_text(void)
{
	char path[300];
	FILE *f;
	char *s = calloc(1, 1 << 20);
	size_t n;

	snprintf(path, sizeof(path), "%s/out", tmp);
	f = fopen(path, "r");
	if (f && s) {
		n = fread(s, 1, (1 << 20) - 1, f);
		s[n] = 0;
	}
	if (f)
		fclose(f);
	return s;
}

/* The first line of the last sh()'s output into BUF. */
static void out_line(char *buf, size_t len)
{
	char *s = out_text(), *nl;

	snprintf(buf, len, "%s", s ? s : "");
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	free(s);
}

static int exists(const char *rel)
{
	char p[1024];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return lstat(p, &st) == 0;
}

static int link_to(const char *rel, const char *target)
{
	char p[1024], t[1024];
	ssize_t n;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	n = readlink(p, t, sizeof(t) - 1);
	if (n < 0)
		return 0;
	t[n] = 0;
	return !strcmp(t, target);
}

static void write_file(const char *name, const char *text)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* ---- install ------------------------------------------------------------ */

static void test_install_tree(void)
{
	static const char *const files[] = {
		"/usr/include/libhist.h", "/usr/include/hist_synth.h",
		"/usr/include/hist_ftrace.h", "/usr/lib/libhist.a",
		"/usr/lib/libhist-ftrace.a", "/usr/lib/libhist.so.0.1.0",
		"/usr/lib/libhist-ftrace.so.0.1.0", "/usr/lib/pkgconfig/libhist.pc",
		"/usr/lib/pkgconfig/libhist-ftrace.pc", "/usr/bin/hist-replay",
		"/usr/bin/hist-live", "/usr/share/man/man3/libhist.3",
		"/usr/share/man/man3/hist_reader_next.3",
		"/usr/share/man/man1/hist-replay.1", "/usr/share/man/man1/hist-live.1",
	};
	char pc[1200], *text;
	size_t i;

	T_EQ(sh(1, "make -s --no-print-directory install DESTDIR=%s PREFIX=/usr BUILD=%s",
		root, build), 0);
	installed = 1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!exists(files[i])) {
			printf("# missing %s\n", files[i]);
			T_ASSERT(0);
		}
	T_ASSERT(link_to("/usr/lib/libhist.so", "libhist.so.0"));
	T_ASSERT(link_to("/usr/lib/libhist.so.0", "libhist.so.0.1.0"));
	T_ASSERT(link_to("/usr/lib/libhist-ftrace.so.0", "libhist-ftrace.so.0.1.0"));
	/* the core has no dependency; the adapter needs libzstd */
	snprintf(pc, sizeof(pc), "cat %s/usr/lib/pkgconfig/libhist.pc", root);
	T_EQ(sh(1, "%s", pc), 0);
	text = out_text();
	T_ASSERT(text && !strstr(text, "Requires"));
	T_ASSERT(text && strstr(text, "Version: " LIBHIST_VERSION_STRING "\n"));
	T_ASSERT(text && strstr(text, "libdir=${prefix}/lib\n"));
	free(text);
	T_EQ(sh(1, "grep -q '^Requires.private: libzstd' %s/usr/lib/pkgconfig/libhist-ftrace.pc",
		root), 0);
	/* a link page points at its page */
	T_EQ(sh(1, "grep -qx '.so man3/hist_reader_create.3' "
		"%s/usr/share/man/man3/hist_reader_next.3", root), 0);
}

static void test_shared_libraries(void)
{
	char line[512];

	T_EQ(sh(1, "readelf -d %s/usr/lib/libhist.so.0.1.0 | grep SONAME", root), 0);
	out_line(line, sizeof(line));
	T_ASSERT(strstr(line, "[libhist.so.0]") != NULL);
	T_EQ(sh(1, "readelf -d %s/usr/lib/libhist-ftrace.so.0.1.0 | grep SONAME", root), 0);
	out_line(line, sizeof(line));
	T_ASSERT(strstr(line, "[libhist-ftrace.so.0]") != NULL);
	/* exactly the declared functions, versioned */
	T_EQ(sh(1, "sh src/pkg/abi-check.sh exports %s/usr/lib/libhist.so.0.1.0 src/pkg/libhist.map",
		root), 0);
	T_EQ(sh(1, "sh src/pkg/abi-check.sh exports %s/usr/lib/libhist-ftrace.so.0.1.0 "
		"src/pkg/libhist-ftrace.map", root), 0);
	T_EQ(sh(1, "nm -D --defined-only %s/usr/lib/libhist.so.0.1.0 | "
		"grep -q 'hist_event_hit@@LIBHIST_0.1'", root), 0);
	T_EQ(sh(0, "nm -D --defined-only %s/usr/lib/libhist.so.0.1.0 | grep -q hist__",
		root), 1);
}

/* The check that fails the build: a header and its script must agree. */
static void test_abi_check_catches(void)
{
	T_EQ(sh(1, "sh src/pkg/abi-check.sh headers '%s' src/pkg/libhist.map include/libhist.h "
		"include/hist_synth.h", cc), 0);
	/* a declaration the script lacks */
	T_EQ(sh(1, "mkdir -p %s/inc && sed 's/^#endif \\/\\* LIBHIST_H \\*\\//"
		"int hist_new_call(void);\\n&/' include/libhist.h > %s/inc/libhist.h",
		tmp, tmp), 0);
	T_EQ(sh(1, "grep -q hist_new_call %s/inc/libhist.h", tmp), 0);
	T_EQ(sh(0, "sh src/pkg/abi-check.sh headers '%s' src/pkg/libhist.map %s/inc/libhist.h "
		"include/hist_synth.h", cc, tmp), 1);
	/* a name the headers do not declare */
	T_EQ(sh(1, "sed 's/global:/global:\\n\\t\\thist_gone;/' src/pkg/libhist.map > %s/x.map",
		tmp), 0);
	T_EQ(sh(0, "sh src/pkg/abi-check.sh headers '%s' %s/x.map include/libhist.h "
		"include/hist_synth.h", cc, tmp), 1);
	/* a library exporting something its script does not name */
	write_file("extra.c", "int hist_version_number(void) { return 1; }\n"
			      "int hist_extra(void) { return 2; }\n");
	write_file("one.map", "LIBHIST_0.1 { global: hist_version_number; hist_extra; "
			      "local: *; };\n");
	T_EQ(sh(1, "cd %s && %s -shared -fPIC -Wl,--version-script=one.map extra.c -o extra.so",
		tmp, cc), 0);
	T_EQ(sh(0, "sh src/pkg/abi-check.sh exports %s/extra.so src/pkg/libhist.map", tmp), 1);
}

/* ---- an outside project --------------------------------------------------- */

/* C and C++ alike (no designated initializers, no implicit void *). */
static const char prog_c[] =
	"#include <libhist.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"\n"
	"static const struct hist_field_desc f[] = {\n"
	"\t{ \"common_type\", \"unsigned short\", 0, 2, 0, HIST_FIELD_INT },\n"
	"\t{ \"common_pid\", \"int\", 4, 4, 1, HIST_FIELD_INT },\n"
	"\t{ \"n\", \"u32\", 8, 4, 0, HIST_FIELD_INT },\n"
	"};\n"
	"\n"
	"static int w(void *a, const char *s, size_t n)\n"
	"{\n"
	"\t(void)a;\n"
	"\treturn fwrite(s, 1, n, stdout) == n ? 0 : -1;\n"
	"}\n"
	"\n"
	"int main(void)\n"
	"{\n"
	"\tstruct hist_host host;\n"
	"\tstruct hist_event_desc d;\n"
	"\tconst struct hist_read_entry *e;\n"
	"\thist_builder *b;\n"
	"\thist_reader *r;\n"
	"\thist_event *ev;\n"
	"\thist_ctx *ctx;\n"
	"\tunsigned i;\n"
	"\tint err;\n"
	"\n"
	"\tmemset(&host, 0, sizeof(host));\n"
	"\tmemset(&d, 0, sizeof(d));\n"
	"\td.system = \"app\";\n"
	"\td.name = \"ev\";\n"
	"\td.fields = f;\n"
	"\td.nr_fields = 3;\n"
	"\tctx = hist_ctx_create(&host, NULL, &err);\n"
	"\tif (!ctx || hist_event_define(ctx, &d, &ev))\n"
	"\t\treturn 1;\n"
	"\tb = hist_builder_create(ev, &err);\n"
	"\tif (!b || hist_builder_add_key(b, \"n\", HIST_MOD_NONE, 0) ||\n"
	"\t    hist_builder_command(b, HIST_CMD_START, NULL))\n"
	"\t\treturn 1;\n"
	"\thist_builder_destroy(b);\n"
	"\tfor (i = 0; i < 3; i++) {\n"
	"\t\tunsigned char rec[12] = { 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0 };\n"
	"\t\tstruct hist_hit hit;\n"
	"\n"
	"\t\trec[8] = (unsigned char)(i % 2);\n"
	"\t\tmemset(&hit, 0, sizeof(hit));\n"
	"\t\thit.pid = -1;\n"
	"\t\thist_event_hit(ev, rec, sizeof(rec), &hit);\n"
	"\t}\n"
	"\tr = hist_reader_create(ev, 0, &err);\n"
	"\tif (!r)\n"
	"\t\treturn 1;\n"
	"\tprintf(\"entries=%llu hits=%llu\\n\",\n"
	"\t       (unsigned long long)hist_reader_info(r)->entries,\n"
	"\t       (unsigned long long)hist_reader_info(r)->hits);\n"
	"\twhile ((e = hist_reader_next(r)))\n"
	"\t\tprintf(\"n=%llu count=%llu\\n\", (unsigned long long)e->keys[0].value,\n"
	"\t\t       (unsigned long long)e->vals[0].value);\n"
	"\thist_reader_destroy(r);\n"
	"\tif (hist_event_print_json(ev, w, NULL))\n"
	"\t\treturn 1;\n"
	"\tprintf(\"\\nversion %s %u\\n\", hist_version(), hist_version_number());\n"
	"\thist_ctx_destroy(ctx);\n"
	"\treturn strcmp(hist_version(), LIBHIST_VERSION_STRING) != 0;\n"
	"}\n";

static const char ftrace_c[] =
	"#include <hist_ftrace.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"\n"
	"int main(void)\n"
	"{\n"
	"\tstatic const char f[] = \"name: e\\nID: 3\\nformat:\\n\"\n"
	"\t\t\"\\tfield:unsigned short common_type;\\toffset:0;\\tsize:2;\\tsigned:0;\\n\";\n"
	"\tstruct hist_ftrace_event *e;\n"
	"\tchar err[128];\n"
	"\n"
	"\tif (hist_ftrace_parse_format(f, strlen(f), \"s\", &e, err, sizeof(err)))\n"
	"\t\treturn 1;\n"
	"\tprintf(\"%s id %u fields %u version %s\\n\", e->desc.name, e->desc.id,\n"
	"\t       e->desc.nr_fields, hist_version());\n"
	"\thist_ftrace_event_free(e);\n"
	"\treturn 0;\n"
	"}\n";

/* The flags pkg-config gives, through the installed root. */
static int pkgconf(const char *args, char *out, size_t len)
{
	int st = sh(1, "PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig "
		    "pkg-config %s", root, root, args);

	out_line(out, len);
	/* pkgconf ends the line with a blank */
	while (*out && out[strlen(out) - 1] == ' ')
		out[strlen(out) - 1] = 0;
	return st;
}

static void test_pkg_config(void)
{
	char want[1200];

	if (!have_pkgconfig) {
		printf("# SKIP pkg-config is not installed: the flags are spelt out\n");
		snprintf(flags_c, sizeof(flags_c), "-I%s/usr/include", root);
		snprintf(libs_shared, sizeof(libs_shared), "-L%s/usr/lib -lhist", root);
		snprintf(libs_static, sizeof(libs_static), "-L%s/usr/lib -lhist", root);
		snprintf(ftrace_shared, sizeof(ftrace_shared),
			 "-L%s/usr/lib -lhist-ftrace -lhist", root);
		snprintf(ftrace_static, sizeof(ftrace_static),
			 "-L%s/usr/lib -lhist-ftrace -lhist -lzstd -lpthread", root);
		return;
	}
	T_EQ(pkgconf("--cflags libhist", flags_c, sizeof(flags_c)), 0);
	snprintf(want, sizeof(want), "-I%s/usr/include", root);
	T_STREQ(flags_c, want);
	T_EQ(pkgconf("--libs libhist", libs_shared, sizeof(libs_shared)), 0);
	snprintf(want, sizeof(want), "-L%s/usr/lib -lhist", root);
	T_STREQ(libs_shared, want);
	T_EQ(pkgconf("--static --libs libhist", libs_static, sizeof(libs_static)), 0);
	T_STREQ(libs_static, want);	/* nothing else, even statically */
	T_EQ(pkgconf("--modversion libhist", want, sizeof(want)), 0);
	T_STREQ(want, LIBHIST_VERSION_STRING);
	T_EQ(pkgconf("--libs libhist-ftrace", ftrace_shared, sizeof(ftrace_shared)), 0);
	T_ASSERT(strstr(ftrace_shared, "-lhist-ftrace") && strstr(ftrace_shared, "-lhist"));
	T_EQ(pkgconf("--static --libs libhist-ftrace", ftrace_static,
		     sizeof(ftrace_static)), 0);
	T_ASSERT(strstr(ftrace_static, "-lzstd") != NULL);
}

/* Build SRC (in TMP) as LANG ("c" or "c++") into BIN, linked LINK. */
static int build_prog(const char *lang, const char *src, const char *bin, int shared,
		      const char *libs)
{
	const char *compiler = strcmp(lang, "c") ? "c++" : cc;

	if (shared)
		return sh(1, "cd %s && %s %s -x %s %s %s %s -o %s", tmp, compiler, san,
			  lang, flags_c, src, libs, bin);
	return sh(1, "cd %s && %s %s -x %s %s %s -Wl,-Bstatic %s -Wl,-Bdynamic -o %s",
		  tmp, compiler, san, lang, flags_c, src, libs, bin);
}

static int needs_libhist(const char *bin)
{
	return sh(0, "readelf -d %s/%s | grep NEEDED | grep -q 'libhist.so.0'", tmp, bin) == 0;
}

static void test_outside_program(void)
{
	static const char *const langs[] = { "c", "c++" };
	char *text;
	int l, shared;

	write_file("prog.c", prog_c);
	write_file("ftrace.c", ftrace_c);
	for (l = 0; l < 2; l++) {
		if (l && system("c++ --version >/dev/null 2>&1")) {
			printf("# SKIP the C++ program: no c++ compiler\n");
			break;
		}
		for (shared = 0; shared < 2; shared++) {
			char bin[64];

			snprintf(bin, sizeof(bin), "prog-%s-%s", l ? "cxx" : "c",
				 shared ? "shared" : "static");
			T_EQ(build_prog(langs[l], "prog.c", bin, shared,
					shared ? libs_shared : libs_static), 0);
			T_EQ(needs_libhist(bin), shared);
			/* the shared one runs with the installed library */
			T_EQ(sh(1, "LD_LIBRARY_PATH=%s/usr/lib %s/%s", root, tmp, bin), 0);
			text = out_text();
			T_ASSERT(text && strstr(text, "entries=2 hits=3\nn=1 count=1\n"
						"n=0 count=2\n"));
			T_ASSERT(text && strstr(text, "\"totals\": { \"hits\": 3, "
						"\"entries\": 2, \"dropped\": 0 }"));
			T_ASSERT(text && strstr(text, "version " LIBHIST_VERSION_STRING " "));
			free(text);
		}
	}
	/* the adapter, both ways */
	T_EQ(build_prog("c", "ftrace.c", "ftrace-shared", 1, ftrace_shared), 0);
	T_EQ(sh(1, "LD_LIBRARY_PATH=%s/usr/lib %s/ftrace-shared", root, tmp), 0);
	text = out_text();
	T_ASSERT(text && strstr(text, "e id 3 fields 1 version"));
	free(text);
	T_EQ(build_prog("c", "ftrace.c", "ftrace-static", 0, ftrace_static), 0);
	T_EQ(sh(1, "%s/ftrace-static", tmp), 0);
	T_EQ(needs_libhist("ftrace-static"), 0);
}

/* ---- man pages ----------------------------------------------------------- */

/* The code of PAGE's EXAMPLE section (.EX ... .EE blocks, troff escapes
 * undone) into DST; 0 if it has none. */
static size_t man_example(const char *page, char *dst, size_t cap)
{
	FILE *f = fopen(page, "r");
	char line[4096];
	size_t n = 0;
	int in_section = 0, in_ex = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *s;

		if (!strncmp(line, ".SH ", 4)) {
			in_section = !strncmp(line + 4, "EXAMPLE", 7);
			continue;
		}
		if (!in_section)
			continue;
		if (!strncmp(line, ".EX", 3)) {
			in_ex = 1;
			continue;
		}
		if (!strncmp(line, ".EE", 3)) {
			in_ex = 0;
			continue;
		}
		if (!in_ex)
			continue;
		for (s = line; *s && n + 2 < cap; s++) {
			if (s[0] == '\\' && s[1] == 'e') {
				dst[n++] = '\\';
				s++;
			} else if (s[0] == '\\' && s[1] == '-') {
				dst[n++] = '-';
				s++;
			} else if (!strncmp(s, "\\(aq", 4)) {
				dst[n++] = '\'';
				s += 3;
			} else if (!strncmp(s, "\\(dq", 4)) {
				dst[n++] = '"';
				s += 3;
			} else {
				dst[n++] = *s;
			}
		}
	}
	fclose(f);
	dst[n] = 0;
	return n;
}

static void test_man3_examples(void)
{
	static char code[65536];
	char dir[600], page[1200], th[128];
	struct dirent *d;
	DIR *dp;
	int pages = 0, links = 0, examples = 0;

	snprintf(dir, sizeof(dir), "%s/usr/share/man/man3", root);
	snprintf(th, sizeof(th), "\"libhist %s\"", hist_version());
	dp = opendir(dir);
	T_ASSERT(dp != NULL);
	while (dp && (d = readdir(dp))) {
		char src[300], bin[300];
		int shared;

		if (d->d_name[0] == '.')
			continue;
		snprintf(page, sizeof(page), "%s/%s", dir, d->d_name);
		if (sh(0, "head -1 %s | grep -q '^\\.so '", page) == 0) {
			links++;
			continue;
		}
		pages++;
		/* the pages say which version they describe */
		if (sh(0, "head -1 %s | grep -qF '%s'", page, th)) {
			printf("# %s: .TH does not name libhist %s\n", d->d_name,
			       hist_version());
			T_ASSERT(0);
		}
		if (!man_example(page, code, sizeof(code))) {
			printf("# %s: no EXAMPLE\n", d->d_name);
			T_ASSERT(0);
			continue;
		}
		examples++;
		snprintf(src, sizeof(src), "man-%s.c", d->d_name);
		write_file(src, code);
		/* the static link on the one page that uses the adapter */
		shared = !strstr(code, "hist_ftrace.h");
		snprintf(bin, sizeof(bin), "man-%s", d->d_name);
		if (sh(1, "cd %s && %s %s -std=c11 -Wall -Wextra -Werror -x c %s %s "
		       "%s%s%s -lpthread -o %s", tmp, cc, san, flags_c, src,
		       shared ? "" : "-Wl,-Bstatic ",
		       shared ? libs_shared : ftrace_static,
		       shared ? "" : " -Wl,-Bdynamic -lzstd", bin)) {
			printf("# %s: the EXAMPLE does not build\n", d->d_name);
			T_ASSERT(0);
			continue;
		}
		if (sh(1, "LD_LIBRARY_PATH=%s/usr/lib %s/%s", root, tmp, bin)) {
			printf("# %s: the EXAMPLE fails\n", d->d_name);
			T_ASSERT(0);
		}
	}
	if (dp)
		closedir(dp);
	printf("# %d pages (%d EXAMPLEs built and run), %d link pages\n", pages,
	       examples, links);
	T_ASSERT(pages >= 10 && links >= 50);
	/* every function of both libraries has a page */
	T_EQ(sh(1, "for f in $(cat src/pkg/libhist.map src/pkg/libhist-ftrace.map | "
		"grep -oE 'hist_[a-z0-9_]+;' | tr -d ';'); do "
		"[ -e %s/$f.3 ] || { echo \"no page for $f\"; exit 1; }; done", dir), 0);
}

static void test_man1_pages(void)
{
	static const char *const tools[] = { "hist-replay", "hist-live" };
	static char code[65536];
	char page[1200];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(page, sizeof(page), "%s/usr/share/man/man1/%s.1", root, tools[i]);
		/* every long option the page documents is one the tool has */
		if (sh(1, "%s/usr/bin/%s --help > %s/help.txt && "
		       "for o in $(grep -oE '\\\\-\\\\-[a-z][a-z\\\\-]*' %s | sed 's/\\\\//g'); do "
		       "grep -q -- \"$o\" %s/help.txt || { echo \"$o not in --help\"; exit 1; }; "
		       "done", root, tools[i], tmp, page, tmp))
			T_ASSERT(0);
	}
	/* hist-replay's examples run on the bundled recordings */
	snprintf(page, sizeof(page), "%s/usr/share/man/man1/hist-replay.1", root);
	T_ASSERT(man_example(page, code, sizeof(code)) > 0);
	write_file("replay-examples.sh", code);
	T_EQ(sh(1, "PATH=%s/usr/bin:$PATH sh -e %s/replay-examples.sh", root, tmp), 0);
	{
		char *text = out_text();

		T_ASSERT(text && strstr(text, "# trigger info: hist:keys=common_pid.execname"));
		T_ASSERT(text && strstr(text, "\"event\": \"wakeup_latency\""));
		free(text);
	}
}

static void test_uninstall(void)
{
	char *text;

	T_EQ(sh(1, "make -s --no-print-directory uninstall DESTDIR=%s PREFIX=/usr BUILD=%s",
		root, build), 0);
	T_EQ(sh(1, "find %s ! -type d", root), 0);
	text = out_text();
	T_STREQ(text, "");
	free(text);
}

int main(int argc, char **argv)
{
	const char *e;

	(void)argc;
	/* BUILD/test/test_install -> BUILD */
	t_build_dir(build, sizeof(build), argv[0]);
	e = getenv("HIST_CC");
	snprintf(cc, sizeof(cc), "%s", e && *e ? e : "cc");
	e = getenv("HIST_SAN");
	snprintf(san, sizeof(san), "%s", e ? e : "");
	if (t_scratch(tmp, sizeof(tmp), "test_install"))
		return 1;
	snprintf(root, sizeof(root), "%s/root", tmp);
	have_pkgconfig = system("pkg-config --version >/dev/null 2>&1") == 0;

	T_RUN(test_install_tree);
	if (installed) {
		T_RUN(test_shared_libraries);
		T_RUN(test_abi_check_catches);
		T_RUN(test_pkg_config);
		T_RUN(test_outside_program);
		T_RUN(test_man3_examples);
		T_RUN(test_man1_pages);
		T_RUN(test_uninstall);
	}
	t_scratch_remove(tmp);
	return T_DONE();
}
