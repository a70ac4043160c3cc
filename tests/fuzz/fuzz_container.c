/* libFuzzer entry for containers: ANIMFS_FUZZ_CONTAINER names one (see the
 * CONTAINER table of `animfs formats`); the property is af_fuzz_container's. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_props.h"

static const struct af_container *container;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *name = getenv("ANIMFS_FUZZ_CONTAINER");
	setenv("ANIMFS_NAMES", "", 1); /* a commit learns names: never into the user's dictionary */
	container = name ? af_container_by_name(name) : NULL;
	if (!container) {
		fprintf(stderr, "set ANIMFS_FUZZ_CONTAINER to one of:");
		for (size_t i = 0; af_containers[i]; i++)
			fprintf(stderr, " %s", af_containers[i]->name);
		fprintf(stderr, "\n");
		exit(2);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (af_fuzz_container(container, data, n))
		abort();
	return 0;
}
