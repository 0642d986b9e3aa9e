// SPDX-License-Identifier: MIT
/*
 * version.c - wsgemm_get_version: the version this library was built as (the WSGEMM_VERSION_* macros
 * of include/wsgemm.h, which is also where CMake reads the project version from).
 */
#include "wsgemm.h"

wsgemm_status wsgemm_get_version(int *major, int *minor, int *patch)
{
    if (major) *major = WSGEMM_VERSION_MAJOR;
    if (minor) *minor = WSGEMM_VERSION_MINOR;
    if (patch) *patch = WSGEMM_VERSION_PATCH;
    return WSGEMM_STATUS_SUCCESS; /* a query: the message of calls without a handle stays */
}
