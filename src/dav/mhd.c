/* libmicrohttpd loaded at a server's start (mhd.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mhd.h"

struct dav_mhd dav_mhd;

static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

/* The library this build was compiled against (its soname), else any. */
static const char *const names[] = {"libmicrohttpd.so.12", "libmicrohttpd.so"};

static const struct {
	const char *sym;
	size_t off;
} syms[] = {
#define S(name, field) {name, offsetof(struct dav_mhd, field)}
	S("MHD_start_daemon", start_daemon),
	S("MHD_stop_daemon", stop_daemon),
	S("MHD_get_daemon_info", get_daemon_info),
	S("MHD_lookup_connection_value", lookup_connection_value),
	S("MHD_create_response_from_buffer", from_buffer),
	S("MHD_create_response_from_buffer_with_free_callback", from_buffer_free),
	S("MHD_create_response_from_callback", from_callback),
	S("MHD_add_response_header", add_response_header),
	S("MHD_queue_response", queue_response),
	S("MHD_destroy_response", destroy_response),
	S("MHD_basic_auth_get_username_password", basic_auth_get),
	S("MHD_queue_basic_auth_fail_response", basic_auth_fail),
	S("MHD_free", free),
#undef S
};

int dav_mhd_load(char *err, size_t errlen)
{
	int rc = 0;
	pthread_mutex_lock(&once);
	if (loaded)
		goto out;
	void *h = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "cannot load libmicrohttpd (%s): install libmicrohttpd12", dlerror());
		rc = -1;
		goto out;
	}
	struct dav_mhd t;
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(h, syms[i].sym);
		if (!f) {
			snprintf(err, errlen, "libmicrohttpd has no %s: a newer one is needed", syms[i].sym);
			dlclose(h);
			rc = -1;
			goto out;
		}
		memcpy((char *)&t + syms[i].off, &f, sizeof f);
	}
	dav_mhd = t;
	loaded = 1;
out:
	pthread_mutex_unlock(&once);
	return rc;
}
