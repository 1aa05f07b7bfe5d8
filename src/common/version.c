/* SPDX-License-Identifier: MIT */
/* The library's version, for a program that may run with a newer shared
 * library than the header it was compiled with. */
#include "libhist.h"

const char *hist_version(void)
{
	return LIBHIST_VERSION_STRING;
}

unsigned hist_version_number(void)
{
	return LIBHIST_VERSION_NUMBER;
}
