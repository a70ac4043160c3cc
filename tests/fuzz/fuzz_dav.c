/* libFuzzer target: the WebDAV face's request parsing (fuzz_dav_props.c). */
#include "fuzz_dav_props.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dav_fuzz_one(data, size);
	return 0;
}
