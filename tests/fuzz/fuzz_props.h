/* The properties every codec must keep on any input, shared by the libFuzzer
 * targets and the replay test: no crash, and
 *   binary: decodes without error  =>  its YAML encodes to the identical bytes
 *           (with the original file at hand, as in a mount save or animfs check);
 *   YAML:   encodes without error  =>  the result decodes, and re-encodes stably;
 *           and the fast YAML scanner, where it takes a text, builds the very tree
 *           libyaml builds (types, text, style, line:column), while af_ydoc_parse
 *           answers as libyaml does (same tree, or same error and place). */
#ifndef ANIMFS_FUZZ_PROPS_H
#define ANIMFS_FUZZ_PROPS_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/codec.h"
#include "animfs/container.h"

/* Each returns 0 when the property holds, -1 (with a message on stderr) when not. */
int af_fuzz_binary(const struct af_codec *c, const uint8_t *data, size_t n);
/* The same, with the decoder's refusal in *refusal (code 0 when it decoded; initialised
 * here, the caller frees it): a caller that counts refusals needs no second decode. */
int af_fuzz_binary_refusal(const struct af_codec *c, const uint8_t *data, size_t n,
			   struct af_diag *refusal);
int af_fuzz_yaml(const struct af_codec *c, const uint8_t *data, size_t n);
/* Containers: opens without error  =>  index.yaml renders; every member's own YAML
 * commits as "unchanged"; replacing a member by its own bytes gives a container that
 * opens again with the same members, each with the same bytes; without member 0 it
 * opens with one member less, and member 0's YAML added under a new name gives one
 * that holds it (where the container takes adds and removes); no crash anywhere. */
int af_fuzz_container(const struct af_container *c, const uint8_t *data, size_t n);
/* The YAML reader property alone; *fast (may be NULL) says if the scanner took it. */
int af_fuzz_yaml_readers(const uint8_t *data, size_t n, int *fast);

#endif
