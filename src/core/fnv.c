/* FNV-1 hashes (multiply then xor), plain and over ASCII-lower-cased bytes. */
#include <string.h>
#include <strings.h>

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

static char lc(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

static unsigned age_code(const char *s, size_t n)
{
	static const struct { const char *s; unsigned v; } ages[] = {
		{ "b", 0x01 }, { "p", 0x02 }, { "c", 0x03 }, { "t", 0x04 }, { "h", 0x05 },
		{ "e", 0x06 }, { "ad", 0x08 }, { "cd", 0x09 }, { "al", 0x0A }, { "ac", 0x0D },
		{ "cc", 0x0E }, { "ah", 0x10 }, { "ch", 0x11 }, { "ab", 0x12 }, { "ar", 0x13 },
	};
	for (size_t i = 0; i < sizeof(ages) / sizeof(ages[0]); i++)
		if (strlen(ages[i].s) == n && !strncasecmp(ages[i].s, s, n))
			return ages[i].v;
	return 0;
}

static int is_ao(const char *s, size_t n)
{
	return n == 1 && (lc(s[0]) == 'a' || lc(s[0]) == 'o');
}

/* FNV64CLIP (sims3-jazz.md 5.3): the game hashes the age-generic name and marks the ages in the top 16 bits. */
uint64_t af_fnv1_64_clip(const char *s, size_t n)
{
	const char *us = memchr(s, '_', n);
	char head[6];
	size_t hl = 0;
	unsigned mask = 0;
	if (us && (size_t)(us - s) <= 5) {
		size_t hn = (size_t)(us - s);
		const char *two = memchr(s, '2', hn);
		size_t xn = two ? (size_t)(two - s) : hn;
		size_t yn = two ? hn - xn - 1 : 0;
		const char *y = two ? two + 1 : NULL;
		if (xn >= 1 && xn <= 2) {
			if (two && yn >= 1 && yn <= 2) {
				if (!(is_ao(s, xn) && is_ao(y, yn))) {
					head[0] = lc(s[0]) == 'o' ? 'o' : 'a';
					head[1] = '2';
					head[2] = lc(y[0]) == 'o' ? 'o' : 'a';
					hl = 3;
					mask = 0x8000u | age_code(s, xn) << 8 | age_code(y, yn);
				}
			} else if (!is_ao(s, xn)) {
				head[0] = 'a';
				hl = 1;
				mask = 0x8000u | age_code(s, xn) << 8;
			}
		}
	}
	uint64_t h;
	if (hl) {
		h = af_fnv1_64_lower(head, hl);
		for (const char *p = us; p < s + n; p++) /* continue FNV-1 over "_rest" */
			h = (h * 0x00000100000001B3ull) ^ (uint8_t)lc(*p);
	} else {
		h = af_fnv1_64_lower(s, n);
	}
	h &= 0x7FFFFFFFFFFFFFFFull;
	return h ^ ((uint64_t)mask << 48);
}
