/* `animfs mount` / `animfs umount`: the FUSE view is not built yet (issue 3). */
#include <stdio.h>

#include "animfs/cli.h"

int af_cli_mount(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "animfs mount: not available yet in this build; use decode/encode/check\n");
	return AF_EXIT_FAIL;
}

int af_cli_umount(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "animfs umount: not available yet in this build\n");
	return AF_EXIT_FAIL;
}
