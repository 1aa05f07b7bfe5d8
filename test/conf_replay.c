/* SPDX-License-Identifier: MIT */
/*
 * The replay engine of hist-replay, compiled into the test programs: the
 * conformance runner must apply writes, markers and task names exactly as
 * the tool does, and the Makefile links every non-test_ file of test/ into
 * each test binary (it does not link examples/, but for the tools' hints,
 * examples/common/hint.o, which the engine calls).  The engine has no main()
 * and no global state; its functions are prefixed replay_.
 */
#include "../examples/hist-replay/replay.c"
#include "../examples/hist-replay/markers.c"
#include "../examples/hist-replay/comm.c"
#include "../examples/hist-replay/perf.c"
#include "../examples/hist-replay/syscalls_x86_64.c"
