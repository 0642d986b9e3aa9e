// SPDX-License-Identifier: MIT
/*
 * version_test.c - CPU test: wsgemm_get_version reports the header's WSGEMM_VERSION_* and the
 * project version the build was configured with (WSGEMM_TEST_PROJECT_VERSION, from CMake), and skips
 * NULL pointers. Linked once against each library (the shared one must export it).
 */
#include <stdio.h>
#include <string.h>

#include "wsgemm.h"

int main(void)
{
    int major = -1, minor = -1, patch = -1;
    if (wsgemm_get_version(&major, &minor, &patch) != WSGEMM_STATUS_SUCCESS) {
        printf("FAIL: wsgemm_get_version did not return SUCCESS\n");
        return 1;
    }
    char got[64];
    snprintf(got, sizeof got, "%d.%d.%d", major, minor, patch);
    printf("library %s, header %d.%d.%d, project %s\n", got, WSGEMM_VERSION_MAJOR, WSGEMM_VERSION_MINOR,
           WSGEMM_VERSION_PATCH, WSGEMM_TEST_PROJECT_VERSION);
    int ok = major == WSGEMM_VERSION_MAJOR && minor == WSGEMM_VERSION_MINOR && patch == WSGEMM_VERSION_PATCH &&
             strcmp(got, WSGEMM_TEST_PROJECT_VERSION) == 0;
    int only_minor = -1;
    ok = ok && wsgemm_get_version(NULL, &only_minor, NULL) == WSGEMM_STATUS_SUCCESS && only_minor == minor;
    printf("%s\n", ok ? "PASS" : "FAIL: versions differ (or a NULL pointer was not skipped)");
    return ok ? 0 : 1;
}
