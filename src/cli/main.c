/* animfs command line: the table of commands (dispatch, usage and help of each, the
 * top-level help), version, formats. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/fs.h"

#ifndef ANIMFS_VERSION
#define ANIMFS_VERSION "0.0.0"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

#define COL 25 /* where the help's second column starts */

static int cmd_formats(int argc, char **argv);
static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

/* One command. Its synopsis is synopsis then synopsis_more (options from the codec
 * table); summary is what it does (the top-level help shows it), options its options,
 * one "  --NAME ARG<pad>what it does" a line, then help_more's lines. */
struct command {
	const char *name, *alias;
	int (*run)(int argc, char **argv);
	const char *synopsis;
	void (*synopsis_more)(FILE *f);
	const char *summary;
	const char *options;
	void (*help_more)(FILE *f, int indent);
};

static const struct command commands[] = {
	{"mount", NULL, af_cli_mount,
	 "mount GAME VIEW [-f] [-d] [-o ro] [-o allow_other] [-o attr_cache=S] [--cache-mb=N]\n"
	 "        [--spill-mb=N] [--unsaved-mb=N] [--scratch-mb=N] [--split | --split-over=SIZE]\n"
	 "        [--overlay MODDIR [--overlay-layout NAME] [--to LAYOUT]] [--rig-dir DIR]", NULL,
	 "show GAME as YAML views in VIEW (FUSE); refused when GAME is\n"
	 "mounted already",
	 "  -f                     stay in the foreground\n"
	 "  -d                     debug output (implies -f)\n"
	 "  -o ro                  a read-only view\n"
	 "  -o allow_other         let other users use the mount (root only: each request\n"
	 "                         runs as its caller)\n"
	 "  -o attr_cache=S        the kernel keeps names and sizes up to S seconds (default\n"
	 "                         " STR(AF_ATTR_CACHE_DEFAULT) " where changes in GAME are watched, 0: none); a change\n"
	 "                         made behind the mount's back is told to it as it happens\n"
	 "                         (inotify; Linux 6.16+), one it cannot watch shows in a\n"
	 "                         stat up to S seconds late (an open sees it at once);\n"
	 "                         not with allow_other (sizes differ by caller)\n"
	 "  --cache-mb=N           memory for rendered views, in MiB (default "
	 STR(AF_DEFAULT_CACHE_MB) ")\n"
	 "  --spill-mb=N           disk for rendered views past the cache, in MiB (default\n"
	 "                         " STR(AF_DEFAULT_SPILL_MB) ", at most half the free space; 0: none)\n"
	 "  --unsaved-mb=N         unsaved text all open views may hold, in MiB (default "
	 STR(AF_DEFAULT_UNSAVED_MB) ")\n"
	 "  --scratch-mb=N         editors' droppings each user may keep, in MiB (default "
	 STR(AF_DEFAULT_SCRATCH_MB) ")\n"
	 "  --split                show each view a format can split as a folder of small\n"
	 "                         documents (index.yaml and parts, as decode --split\n"
	 "                         writes them); a save of any part saves the whole\n"
	 "  --split-over=SIZE      the same for views longer than SIZE (bytes, or with K,\n"
	 "                         M or G: --split-over=1M)\n"
	 "  --overlay MODDIR       never write GAME: show MODDIR's files over it and put\n"
	 "                         every change there, as the game loads mods\n"
	 "  --overlay-layout NAME  with --overlay: MODDIR is a mod folder of a game (see\n"
	 "                         below) and saves into it are in the layout it loads\n"
	 "  --to LAYOUT            with --overlay: saves into MODDIR are written in LAYOUT\n"
	 "                         (a layout of animfs convert; default: the one MODDIR's\n"
	 "                         files are in, else the --overlay-layout's)\n"
	 "  --rig-dir DIR          a clip's rig from DIR when none is beside it: its view\n"
	 "                         (and plot) names the bones, its preview moves it (as\n"
	 "                         animfs decode and gltf --rig-dir)\n",
	 af_cli_ov_layouts_help},
	{"serve", NULL, af_cli_serve,
	 "serve GAME [--listen ADDR:PORT] [--auth FILE] [--tls-cert PEM --tls-key PEM]\n"
	 "        [--daemon | -d] [-o ro] [--cache-mb=N] [--spill-mb=N]\n"
	 "        [--unsaved-mb=N] [--scratch-mb=N] [--split | --split-over=SIZE]\n"
	 "        [--overlay MODDIR [--overlay-layout NAME] [--to LAYOUT]]", NULL,
	 "the same views as mount, over WebDAV (Windows Explorer, macOS\n"
	 "Finder, davfs2, rclone): as the user who runs it, until Ctrl-C\n"
	 "(--daemon: until kill PID)",
	 "  --listen ADDR:PORT     where to listen (default 127.0.0.1:8080); an address\n"
	 "                         other than loopback needs --auth and --tls-*\n"
	 "  --auth FILE            ask for a password: FILE has user:hash lines (crypt(3)\n"
	 "                         hashes: mkpasswd, openssl passwd -6, htpasswd -B)\n"
	 "  --tls-cert PEM, --tls-key PEM   serve HTTPS with this certificate and key\n"
	 "  --daemon               detach from the terminal once listening (it says its\n"
	 "                         pid: kill PID stops it, every save on disk)\n"
	 "  -d                     each request on stderr: method, path, status\n"
	 "  -o ro, --cache-mb ...  as in mount (animfs help mount)\n", NULL},
	{"umount", "unmount", af_cli_umount, "umount VIEW", NULL,
	 "unmount and wait until every save is on disk", NULL, NULL},
	{"errors", NULL, af_cli_errors, "errors [VIEW] | errors --clear [PATH]", NULL,
	 "the mount's refused saves, newest first, as path:line:col: message\n"
	 "(VIEW: the mount the current folder is in); --clear: forget your lines\n"
	 "about PATH (a folder: beneath it; none: the whole mount)", NULL, NULL},
	{"overlay", NULL, af_cli_overlay,
	 "overlay status|diff [--layout] GAME MODDIR | overlay ship [--force] MODDIR DEST", NULL,
	 "what a mod folder changes over GAME (mount --overlay): each new\n"
	 "and changed file and container member, or (diff) its YAML diff; a file\n"
	 "in another layout than GAME's (PAYDAY 2 x64) is compared in its layout,\n"
	 "with one line saying so (--layout: the lines the layout changes too);\n"
	 "ship: MODDIR's files copied into DEST, where the game loads mods from\n"
	 "(an override package under its own name: never over the one it fixes)",
	 "  --layout               diff: GAME's file in its own layout, every line\n"
	 "  --force                ship: replace files DEST has already (else nothing\n"
	 "                         is copied when one is there)\n", NULL},
	{"decode", NULL, af_cli_decode,
	 "decode FILE [-o OUT | --split DIR] [--format NAME] [--schema-ref DIR|none]\n"
	 "        [--review] [--rig-dir DIR] [--cache-mb=N]",
	 af_cli_decode_options,
	 "binary to YAML (stdout by default; git textconv ready); FILE\n"
	 "may be CONTAINER/MEMBER or CONTAINER/index.yaml (see 'animfs\n"
	 "formats'); a whole container decodes to one document",
	 "  -o OUT                 write OUT (atomically) instead of standard output\n"
	 "  --split DIR            a folder of small documents instead: DIR/index.yaml\n"
	 "                         and one part per object, block or channel group\n"
	 "                         (encode DIR puts them together again)\n"
	 "  --format NAME          decode with the codec NAME (see 'animfs formats')\n"
	 "  --schema-ref DIR|none  the first line names the schema for editors,\n"
	 "                         DIR/FORMAT.json (default: the installed schemas;\n"
	 "                         none: no such line)\n"
	 "  --rig-dir DIR          a clip's bones named by the best-fitting rig in\n"
	 "                         DIR (rigs extracted from the game) when none beside it\n"
	 "                         fits, as gltf --rig-dir finds it\n"
	 "  --review               a whole container's index without where each member\n"
	 "                         lies (offsets, stored sizes: a rebuild recomputes\n"
	 "                         them), for git's textconv: a diff shows the change\n"
	 "  --cache-mb=N           memory stays within N + 64 MiB, as in mount (default\n"
	 "                         256): half for the YAML, half for the file's model\n",
	 af_cli_decode_options_help},
	{"encode", NULL, af_cli_encode,
	 "encode FILE.yaml|DIR [-o OUT] [--cache-mb=N]\n"
	 "        [--overlay MODDIR --game GAME [--overlay-layout NAME] [--to LAYOUT]]",
	 NULL,
	 "YAML to binary, replacing OUT atomically (OUT may be\n"
	 "CONTAINER/MEMBER; DIR: a split view, see decode --split)",
	 "  -o OUT                 the binary to write (default: FILE without .yaml)\n"
	 "  --cache-mb=N           memory stays within N + 64 MiB, as in mount (default\n"
	 "                         " STR(AF_DEFAULT_CACHE_MB) "): a document whose tree needs more is refused\n"
	 "  --overlay MODDIR       leave OUT (a path in GAME) as it is: write the result to\n"
	 "                         MODDIR at OUT's path in GAME, as mount --overlay saves\n"
	 "  --game GAME            with --overlay: the game folder OUT is in\n"
	 "  --overlay-layout NAME  MODDIR is a mod folder of a game, written in the\n"
	 "                         layout it loads, as mount --overlay-layout NAME\n"
	 "                         (animfs help mount lists them)\n"
	 "  --to LAYOUT            with --overlay: the layout to write, as mount --to\n",
	 NULL},
	{"check", NULL, af_cli_check, "check [--coverage] [-j N] [--cache-mb=N] PATH...", NULL,
	 "decode and re-encode every supported file; compare bytes",
	 "  --coverage             also count the animation bytes each format shows as\n"
	 "                         editable fields and those it carries opaque\n"
	 "  -j, --jobs N           check N files at a time (default: one per core); the\n"
	 "                         output is the same whatever N\n"
	 "  --cache-mb=N           the encodes of all N threads stay within N + 64 MiB\n"
	 "                         (default 256, the mount's); a big file waits for room\n"
	 "                         or is encoded alone\n", NULL},
	{"convert", NULL, af_cli_convert_layout, NULL, af_cli_convert_synopsis,
	 "rewrite files in another layout of their own format, in place or\n"
	 "into OUTDIR; -n only reports",
	 "  --to LAYOUT            the layout to write (see below)\n"
	 "  --style STYLE          the writer's style, for a layout that has several\n"
	 "  -n, --dry-run          only report what would be converted\n"
	 "  -o OUTDIR              write under OUTDIR, leaving the inputs unchanged\n",
	 af_cli_convert_help},
	{"plot", NULL, af_cli_plot, "plot FILE [--object NAME]... [--rig-dir DIR] [-o OUT.svg]", NULL,
	 "an SVG of each channel over time (a view, a binary, or\n"
	 "CONTAINER/MEMBER as decode takes it)",
	 "  --object NAME          draw the object NAME (repeatable; default: the first 24)\n"
	 "  --rig-dir DIR          a binary clip's bones named as decode --rig-dir names them\n"
	 "  -o OUT.svg             write OUT.svg instead of standard output\n", NULL},
	{"gltf", NULL, af_cli_gltf, "gltf FILE [-o OUT.glb|OUT.gltf] [--anim NAME]... [--rig FILE | --rig-dir DIR]\n"
	 "        [--skeleton FILE]", NULL,
	 "a glTF 2.0 preview of the skeleton, meshes and animations (a\n"
	 "view, a binary, or CONTAINER/MEMBER as decode takes it)",
	 "  -o OUT.glb|OUT.gltf    write a GLB, or glTF JSON with the buffer inline\n"
	 "                         (default: a GLB on standard output)\n"
	 "  --anim NAME            keep only the animation NAME (repeatable)\n"
	 "  --rig FILE             the skeleton the animation moves (a file with bones;\n"
	 "                         default: a clip's rig found beside it, docs/gltf.md)\n"
	 "  --rig-dir DIR          when none is beside it, the best-fitting rig in DIR\n"
	 "                         (rigs extracted from the game)\n"
	 "  --skeleton FILE        parents for the preview's nodes: 'CHILD -> PARENT' a line\n"
	 "                         (PARENT '-': a root; ' @ X Y Z' after it: the child's\n"
	 "                         rest offset; docs/gltf.md)\n",
	 NULL},
	{"import", NULL, af_cli_import,
	 "import FILE.glb|FILE.gltf --into GAMEFILE[/MEMBER] [-o OUT] [--anim NAME]... [--refit]", NULL,
	 "a glTF (a preview, edited) back into the game file, as a merge into\n"
	 "it: changed channels re-keyed in the format, the rest as it was\n"
	 "(docs/gltf.md)",
	 "  --into GAMEFILE        the file the preview was made of (replaced atomically),\n"
	 "                         or a container's member (X.package/NAME.clip)\n"
	 "  -o OUT                 write the result (a member's binary) to OUT instead\n"
	 "  --anim NAME            take only the animation NAME from the glTF (repeatable)\n"
	 "  --refit                a value outside a channel's stored range refits the\n"
	 "                         range (Sims 3 clips; every frame of it re-quantised)\n",
	 NULL},
	{"formats", NULL, cmd_formats, "formats", NULL, "list the supported formats", NULL, NULL},
	{"schema", NULL, af_cli_schema, "schema FORMAT | schema --all DIR", NULL,
	 "the JSON Schema of a format's YAML",
	 "  --all DIR              write every format's schema into DIR\n", NULL},
	{"help", NULL, cmd_help, "help [COMMAND] | help --commands", NULL,
	 "this help, or a command's options (also: animfs COMMAND --help,\n"
	 "or -h)",
	 "  --commands             the commands' names, one a line (for shell completion)\n",
	 NULL},
	{"version", NULL, cmd_version, "version", NULL, "the version (also: animfs --version)", NULL,
	 NULL},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name) ||
		    (commands[i].alias && !strcmp(commands[i].alias, name)))
			return &commands[i];
	return NULL;
}

/* text's lines, the first at column `first` of the current line (a new line when the
 * cursor is past it), each other one at indent. */
static void put_lines(FILE *f, const char *text, int at, int indent)
{
	int first = 1;
	while (*text) {
		size_t n = strcspn(text, "\n");
		fprintf(f, "%*s%.*s\n", first ? (at < indent ? indent - at : 0) : indent, "", (int)n,
			text);
		first = 0;
		text += n + (text[n] == '\n');
	}
}

static int synopsis(FILE *f, const struct command *c)
{
	int n = 0;
	if (c->synopsis) {
		const char *nl = strrchr(c->synopsis, '\n');
		fputs(c->synopsis, f);
		n = (int)strlen(nl ? nl + 1 : c->synopsis);
	}
	if (c->synopsis_more) {
		c->synopsis_more(f);
		n = COL; /* unknown: the summary goes below */
	}
	return n;
}

static void usage(FILE *f)
{
	fputs("usage: animfs COMMAND [ARGS]\n"
	      "\n"
	      "Turns game animation files into editable YAML and back.\n"
	      "\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		int at = 2 + (fputs("  ", f), synopsis(f, &commands[i]));
		if (at + 1 >= COL) {
			fputc('\n', f);
			at = 0;
		}
		put_lines(f, commands[i].summary, at, COL);
		if (commands[i].help_more)
			commands[i].help_more(f, COL);
	}
	fputs("  --help, -h, --version\n"
	      "\n"
	      "'animfs help COMMAND' shows a command's options.\n"
	      "exit codes: 0 ok; 1 failure, or a missing or unreadable input; 2 usage error\n", f);
}

/* A command's help: its synopsis, what it does and its options. */
static void help_of(FILE *f, const struct command *c)
{
	fputs("usage: animfs ", f);
	synopsis(f, c);
	fputs("\n\n", f);
	put_lines(f, c->summary, 0, 0);
	if (c->options || c->help_more)
		fputs("\noptions:\n", f);
	if (c->options)
		fputs(c->options, f);
	if (c->help_more)
		c->help_more(f, 2);
}

int af_cli_usage(const char *name)
{
	const struct command *c = find(name);
	if (c) {
		fputs("usage: animfs ", stderr);
		synopsis(stderr, c);
		fprintf(stderr, "\n(animfs help %s: what each option does)\n", c->name);
	}
	return AF_EXIT_USAGE;
}

static int unknown(const char *name)
{
	fprintf(stderr, "animfs: unknown command '%s'; the commands are:", name);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
	fputs("\n(animfs help: what each does)\n", stderr);
	return AF_EXIT_USAGE;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;
	if (argc < 2) {
		usage(stdout);
		return AF_EXIT_OK;
	}
	if (argc == 2 && !strcmp(argv[1], "--commands")) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			printf("%s\n", commands[i].name);
		return AF_EXIT_OK;
	}
	if (argc > 2 || argv[1][0] == '-')
		return af_cli_usage("help");
	if (!(c = find(argv[1])))
		return unknown(argv[1]);
	help_of(stdout, c);
	return AF_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return af_cli_usage("version");
	printf("animfs %s\n", ANIMFS_VERSION);
	return AF_EXIT_OK;
}

static int cmd_formats(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return af_cli_usage("formats");
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

/* `animfs CMD --help` or `-h` anywhere before a "--". */
static int asks_help(int argc, char **argv)
{
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *c;
	if (argc < 2) {
		usage(stderr);
		return AF_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		cmd = "help";
	else if (!strcmp(cmd, "--version"))
		cmd = "version";
	if (!(c = find(cmd)))
		return unknown(cmd);
	if (asks_help(argc, argv)) {
		help_of(stdout, c);
		return AF_EXIT_OK;
	}
	if (c->run != af_cli_mount) /* the daemon sets its own */
		af_heap_policy(AF_HEAP_BATCH);
	return c->run(argc - 1, argv + 1);
}
