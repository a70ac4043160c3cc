/* FNV-1 hashes (multiply then xor), plain and over ASCII-lower-cased bytes. */
#include "animfs/fnv.h"

static inline uint8_t lower(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

uint32_t af_fnv1_32(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint32_t h = 0x811C9DC5u;
	for (size_t i = 0; i < n; i++)
		h = (h * 0x01000193u) ^ s[i];
	return h;
}

uint64_t af_fnv1_64(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t h = 0xCBF29CE484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h * 0x00000100000001B3ull) ^ s[i];
	return h;
}

uint32_t af_fnv1_32_lower(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint32_t h = 0x811C9DC5u;
	for (size_t i = 0; i < n; i++)
		h = (h * 0x01000193u) ^ lower(s[i]);
	return h;
}

uint64_t af_fnv1_64_lower(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t h = 0xCBF29CE484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h * 0x00000100000001B3ull) ^ lower(s[i]);
	return h;
}
