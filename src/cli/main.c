/* animfs command line: dispatch, usage, version, formats. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/container.h"

#ifndef ANIMFS_VERSION
#define ANIMFS_VERSION "0.0.0"
#endif

static void usage(FILE *f)
{
	fputs("usage: animfs COMMAND [ARGS]\n"
	      "\n"
	      "Turns game animation files into editable YAML and back.\n"
	      "\n"
	      "commands:\n"
	      "  mount GAME VIEW [-f] [-d] [-o ro] [-o allow_other] [--cache-mb=N]\n"
	      "        [--unsaved-mb=N]\n"
	      "                         show GAME as YAML views in VIEW (FUSE)\n"
	      "  umount VIEW            unmount and wait until every save is on disk\n"
	      "  errors [VIEW]          the mount's refused saves, newest last, as path:line:col: message\n"
	      "                         (VIEW: the mount the current folder is in)\n"
	      "  decode FILE [-o OUT] [--format NAME] [--schema-ref DIR|none]", f);
	af_cli_decode_options(f); /* the codecs' rendering options */
	fputs("\n"
	      "                         binary to YAML (stdout by default; git textconv ready);\n"
	      "                         its first line names the schema for editors (DIR/FORMAT.json;\n"
	      "                         default: the installed schemas; none: no such line)\n", f);
	af_cli_decode_options_help(f, 25);
	fputs("  encode FILE.yaml [-o OUT]\n"
	      "                         YAML to binary (OUT defaults to FILE without .yaml)\n"
	      "                         (FILE and OUT may be CONTAINER/MEMBER or CONTAINER/index.yaml:\n"
	      "                         a member of a container, see 'animfs formats')\n"
	      "  check [--coverage] PATH...\n"
	      "                         decode and re-encode every supported file; compare bytes\n"
	      "                         (--coverage: animation bytes decoded vs carried opaque)\n", f);
	fputs("  ", f);
	af_cli_convert_synopsis(f); /* the layouts are the codecs' */
	fputc('\n', f);
	af_cli_convert_help(f, 25);
	fputs("  plot FILE [--object NAME]... [-o OUT.svg]\n"
	      "                         an SVG of each channel over time (a view or a binary)\n"
	      "  formats                list the supported formats\n"
	      "  schema FORMAT | schema --all DIR\n"
	      "                         the JSON Schema of a format's YAML (--all: every format into DIR)\n"
	      "  --help, --version\n"
	      "\n"
	      "exit codes: 0 ok, 1 failure, 2 usage error\n", f);
}

static int cmd_formats(void)
{
	printf("%-22s %-16s %s\n", "FORMAT", "FILES", "DESCRIPTION");
	for (size_t i = 0; af_codecs[i]; i++)
		printf("%-22s %-16s %s\n", af_codecs[i]->name, af_codecs[i]->extensions,
		       af_codecs[i]->description);
	printf("\n%-22s %-16s %s\n", "CONTAINER", "MEMBERS", "DESCRIPTION");
	for (size_t i = 0; af_containers[i]; i++)
		printf("%-22s %-16s %s\n", af_containers[i]->name, af_containers[i]->members,
		       af_containers[i]->description);
	return AF_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return AF_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "mount")) /* the daemon sets its own */
		af_heap_policy(AF_HEAP_BATCH);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return AF_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("animfs %s\n", ANIMFS_VERSION);
		return AF_EXIT_OK;
	}
	if (!strcmp(cmd, "formats"))
		return cmd_formats();
	if (!strcmp(cmd, "decode"))
		return af_cli_decode(argc - 1, argv + 1);
	if (!strcmp(cmd, "encode"))
		return af_cli_encode(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return af_cli_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "convert"))
		return af_cli_convert_layout(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return af_cli_plot(argc - 1, argv + 1);
	if (!strcmp(cmd, "errors"))
		return af_cli_errors(argc - 1, argv + 1);
	if (!strcmp(cmd, "schema"))
		return af_cli_schema(argc - 1, argv + 1);
	if (!strcmp(cmd, "mount"))
		return af_cli_mount(argc - 1, argv + 1);
	if (!strcmp(cmd, "umount") || !strcmp(cmd, "unmount"))
		return af_cli_umount(argc - 1, argv + 1);
	fprintf(stderr, "animfs: unknown command '%s'\n\n", cmd);
	usage(stderr);
	return AF_EXIT_USAGE;
}
