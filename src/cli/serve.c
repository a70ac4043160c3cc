/* `animfs serve GAME`: the views of a mount over WebDAV, for Windows Explorer, macOS
 * Finder and the Linux clients (docs/serve.md). The options are mount's, without the
 * VIEW and the FUSE ones, and with --listen. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "animfs/dav.h"
#include "animfs/fs.h"

static int run_serve(int gamefd, const struct af_fs_opts *o, void *ctx)
{
	return af_fs_serve(gamefd, o, ctx);
}

int af_cli_serve(int argc, char **argv)
{
	struct af_fs_opts o;
	struct af_dav_opts d;
	const char *layout = NULL;
	memset(&d, 0, sizeof(d));
	if (af_cli_fs_parse("serve", argc, argv, &o, &layout, &d))
		return af_cli_usage("serve");
	/* -d: each request on stderr (method, path, status) */
	d.log_requests = o.debug;
	if (o.allow_other || (o.foreground && !o.debug)) {
		fprintf(stderr, "animfs serve: %s is an option of mount; serve stays in the "
			"foreground and acts as the user who runs it\n",
			o.allow_other ? "-o allow_other" : "-f");
		return AF_EXIT_USAGE;
	}
	if (d.daemon && o.debug) {
		fprintf(stderr, "animfs serve: -d writes each request on the terminal, which "
			"--daemon leaves: give one of them\n");
		return AF_EXIT_USAGE;
	}
	return af_cli_fs_run("serve", &o, layout, NULL, run_serve, &d);
}
