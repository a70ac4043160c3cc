/* libFuzzer entry: ANIMFS_FUZZ_CODEC names the codec (see `animfs formats`);
 * built twice, with FUZZ_YAML 0 (binary input) and 1 (YAML input). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_props.h"

static const struct af_codec *codec;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *name = getenv("ANIMFS_FUZZ_CODEC");
	setenv("ANIMFS_NAMES", "", 1); /* never the user's dictionary of names */
	codec = name ? af_codec_by_name(name) : NULL;
	if (!codec) {
		fprintf(stderr, "set ANIMFS_FUZZ_CODEC to one of:");
		for (size_t i = 0; af_codecs[i]; i++)
			fprintf(stderr, " %s", af_codecs[i]->name);
		fprintf(stderr, "\n");
		exit(2);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	int rc = FUZZ_YAML ? af_fuzz_yaml(codec, data, n) : af_fuzz_binary(codec, data, n);
	if (rc)
		abort();
	return 0;
}
