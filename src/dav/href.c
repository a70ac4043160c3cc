/* Request paths and hrefs (href.h). The decoding is the face's whole path check; the
 * namespace below applies the core's beneath rules again (no symlink, no escape). */
#include <errno.h>
#include <string.h>

#include "href.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Skips "scheme://authority" of an absolute URL; the path part, or NULL. */
static const char *path_of(const char *url)
{
	const char *s = strstr(url, "://");
	if (!s || s == url)
		return NULL;
	for (const char *p = url; p < s; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '+' ||
		      *p == '-' || *p == '.' || (p > url && *p >= '0' && *p <= '9')))
			return NULL;
	const char *p = strchr(s + 3, '/');
	return p ? p : "/";
}

void dav_url_host(const char *url, char *out, size_t n)
{
	const char *s = strstr(url, "://");
	out[0] = 0;
	if (!s || !path_of(url) || n == 0)
		return;
	s += 3;
	size_t len = strcspn(s, "/?#");
	const char *at = memchr(s, '@', len); /* userinfo is no part of the host */
	if (at) {
		len -= (size_t)(at + 1 - s);
		s = at + 1;
	}
	if (len >= n)
		len = n - 1;
	memcpy(out, s, len);
	out[len] = 0;
}

int dav_path_decode(const char *raw, int absolute_ok, char *out, int *dir)
{
	const char *p = raw;
	size_t o = 0;
	*dir = 0;
	out[0] = 0;
	if (absolute_ok && raw[0] != '/') {
		p = path_of(raw);
		if (!p)
			return -EINVAL;
	}
	if (p[0] != '/')
		return -EINVAL;
	if (strchr(p, '#')) /* a fragment is never sent; what it names is unclear: refused */
		return -EINVAL;
	while (*p && *p != '?') {
		while (*p == '/')
			p++;
		if (!*p || *p == '?') {
			*dir = o > 0 || p > raw;
			break;
		}
		size_t start = o, name = 0;
		if (o > 0) {
			if (o + 1 >= DAV_PATH_MAX)
				return -ENAMETOOLONG;
			out[o++] = '/';
			start = o;
		}
		while (*p && *p != '/' && *p != '?') {
			int c = (unsigned char)*p++;
			if (c == '%') {
				int hi = hexval(p[0]), lo = hi < 0 ? -1 : hexval(p[1]);
				if (hi < 0 || lo < 0)
					return -EINVAL;
				c = hi * 16 + lo;
				p += 2;
				if (c == 0 || c == '/')
					return -EINVAL;
			} else if (c < 0x20 || c == 0x7f) {
				return -EINVAL;
			}
			if (++name > DAV_NAME_MAX || o + 1 >= DAV_PATH_MAX)
				return -ENAMETOOLONG;
			out[o++] = (char)c;
		}
		out[o] = 0;
		if (!strcmp(out + start, ".") || !strcmp(out + start, ".."))
			return -EINVAL;
		*dir = 0;
	}
	out[o] = 0;
	return 0;
}

int dav_href_put(struct af_buf *b, const char *rel, int dir)
{
	static const char hex[] = "0123456789ABCDEF";
	af_buf_putc(b, '/');
	for (const unsigned char *s = (const unsigned char *)rel; *s; s++) {
		unsigned c = *s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			af_buf_putc(b, (char)c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			af_buf_append(b, e, 3);
		}
	}
	if (dir && rel[0])
		af_buf_putc(b, '/');
	return b->failed ? -ENOMEM : 0;
}

const char *dav_base(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

int dav_under(const char *rel, const char *root)
{
	size_t n = strlen(root);
	if (n == 0)
		return 1;
	return !strncmp(rel, root, n) && (rel[n] == 0 || rel[n] == '/');
}
