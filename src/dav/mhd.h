/* libmicrohttpd, loaded when a server starts (dlopen), not when animfs starts: with it
 * comes GnuTLS and its libraries, some 3 MiB of every process's memory that no other
 * command needs (`animfs check --cache-mb=1` must stay within 1 + 64 MiB). The face
 * calls MHD_* as usual: after this header those names are the loaded library's. */
#ifndef ANIMFS_DAV_MHD_H
#define ANIMFS_DAV_MHD_H

#include <microhttpd.h>
#include <stddef.h>

struct dav_mhd {
	struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
					   MHD_AccessHandlerCallback, void *, ...);
	void (*stop_daemon)(struct MHD_Daemon *);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
	struct MHD_Response *(*from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	struct MHD_Response *(*from_buffer_free)(size_t, void *, MHD_ContentReaderFreeCallback);
	struct MHD_Response *(*from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
					      MHD_ContentReaderFreeCallback);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	void (*destroy_response)(struct MHD_Response *);
	char *(*basic_auth_get)(struct MHD_Connection *, char **);
	enum MHD_Result (*basic_auth_fail)(struct MHD_Connection *, const char *, struct MHD_Response *);
	void (*free)(void *);
};
extern struct dav_mhd dav_mhd;

/* Loads the library once: 0, or -1 and why in err. */
int dav_mhd_load(char *err, size_t errlen);

#define MHD_start_daemon dav_mhd.start_daemon
#define MHD_stop_daemon dav_mhd.stop_daemon
#define MHD_get_daemon_info dav_mhd.get_daemon_info
#define MHD_lookup_connection_value dav_mhd.lookup_connection_value
#define MHD_create_response_from_buffer dav_mhd.from_buffer
#define MHD_create_response_from_buffer_with_free_callback dav_mhd.from_buffer_free
#define MHD_create_response_from_callback dav_mhd.from_callback
#define MHD_add_response_header dav_mhd.add_response_header
#define MHD_queue_response dav_mhd.queue_response
#define MHD_destroy_response dav_mhd.destroy_response
#define MHD_basic_auth_get_username_password dav_mhd.basic_auth_get
#define MHD_queue_basic_auth_fail_response dav_mhd.basic_auth_fail
#define MHD_free dav_mhd.free

#endif
