/* Editor droppings: the names an editor derives from a file it is saving (swap files,
 * backups, probes, temp files of an atomic save). They are the only new names kept
 * aside in the scratch area; everything else a user makes in the view lands in GAME.
 * The rule is this one table (docs/mount.md shows it; test_dropping has a case per row). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dropping.h"

/* What a row matches: PREFIX X SUFFIX, where X is the file being saved (when the
 * row has one), and the suffix may end in a run of characters of one class, or (T_ANY,
 * rows without X) in any one or more characters. */
enum tail { T_NONE, T_ALNUM6, T_DIGITS, T_LOWER2, T_ANY };

struct row {
	const char *editor;
	const char *prefix;
	const char *suffix; /* before the tail */
	enum tail tail;
	const char *close;  /* after the tail ("~" of emacs' numbered backups) */
	int has_x;          /* X is a name of the same folder */
};

/* Specific rows first: af_dropping_match reports the first row that matches. */
static const struct row rows[] = {
	{"vim swap file .X.swp (.swo, .swn, ... .saa)", ".", ".s", T_LOWER2, "", 1},
	{"vim undo file .X.un~", ".", ".un~", T_NONE, "", 1},
	{"vim write probe 4913 (4913 + 123k)", "", "", T_DIGITS, "", 0},
	{"emacs lock link .#X", ".#", "", T_NONE, "", 1},
	{"emacs auto-save #X#", "#", "#", T_NONE, "", 1},
	{"emacs numbered backup X.~N~", "", ".~", T_DIGITS, "~", 1},
	{"vim/emacs/gedit backup X~", "", "~", T_NONE, "", 1},
	{"nano emergency save X.save", "", ".save", T_NONE, "", 1},
	{"nano emergency save X.save.N", "", ".save.", T_DIGITS, "", 1},
	{"GNU sed -i temp file sedXXXXXX", "sed", "", T_ALNUM6, "", 0},
	{"GIO/gedit temp file .goutputstream-XXXXXX", ".goutputstream-", "", T_ALNUM6, "", 0},
	{"kate swap file .X.kate-swp", ".", ".kate-swp", T_NONE, "", 1},
	{"JetBrains temp file X___jb_tmp___", "", "___jb_tmp___", T_NONE, "", 1},
	{"JetBrains old copy X___jb_old___", "", "___jb_old___", T_NONE, "", 1},
	{"LibreOffice lock .~lock.X#", ".~lock.", "#", T_NONE, "", 1},
	/* WebDAV clients (animfs serve) */
	{"macOS Finder AppleDouble ._X", "._", "", T_NONE, "", 1},
	{"macOS Finder folder settings .DS_Store", ".DS_Store", "", T_NONE, "", 0},
	{"Windows Explorer thumbnails Thumbs.db", "Thumbs.db", "", T_NONE, "", 0},
	{"Windows Explorer folder settings desktop.ini", "desktop.ini", "", T_NONE, "", 0},
	/* Office's owner file drops 1 or 2 leading characters of X's name, so X cannot be
	 * checked: every ~$ name is one (as file-sync clients' default exclude lists say) */
	{"Microsoft Office owner file ~$X", "~$", "", T_ANY, "", 0},
	{"Microsoft Office temp file ~*.tmp (~WRL0001.tmp)", "~", "", T_ANY, ".tmp", 0},
};

size_t af_dropping_rows(void)
{
	return sizeof(rows) / sizeof(rows[0]);
}

const char *af_dropping_editor(size_t row)
{
	return row < af_dropping_rows() ? rows[row].editor : NULL;
}

static int vim_probe(const char *s, size_t n)
{
	if (n < 4 || n > 6 || s[0] == '0')
		return 0;
	long v = strtol(s, NULL, 10);
	return v >= 4913 && (v - 4913) % 123 == 0;
}

/* Length of the tail of class t at the end of s[0..n) (0 when it does not fit). */
static size_t tail_len(enum tail t, const char *s, size_t n)
{
	size_t k = 0;
	switch (t) {
	case T_NONE:
		return 0;
	case T_ALNUM6:
		if (n < 6)
			return (size_t)-1;
		for (k = n - 6; k < n; k++)
			if (!isalnum((unsigned char)s[k]))
				return (size_t)-1;
		return 6;
	case T_LOWER2:
		if (n < 2 || s[n - 2] < 'a' || s[n - 2] > 'w' || s[n - 1] < 'a' || s[n - 1] > 'z')
			return (size_t)-1;
		return 2;
	case T_ANY: /* the whole middle: measured by match_row */
		return 0;
	case T_DIGITS:
		while (k < n && isdigit((unsigned char)s[n - 1 - k]))
			k++;
		return k ? k : (size_t)-1;
	}
	return (size_t)-1;
}

static int match_row(const struct row *r, const char *name, char *x, size_t xsize)
{
	size_t n = strlen(name), pl = strlen(r->prefix), sl = strlen(r->suffix),
	       cl = strlen(r->close);
	if (n < pl + sl + cl || strncmp(name, r->prefix, pl) || strcmp(name + n - cl, r->close))
		return 0;
	size_t body = n - cl; /* name[0..body) ends with suffix + tail */
	size_t tl = r->tail == T_ANY ? body - pl - sl : tail_len(r->tail, name, body);
	if (tl == (size_t)-1 || body < pl + sl + tl || (r->tail == T_ANY && !tl))
		return 0;
	const char *suf = name + body - tl - sl;
	if (strncmp(suf, r->suffix, sl))
		return 0;
	if (r->tail == T_DIGITS && !r->has_x && !vim_probe(name, n))
		return 0;
	size_t xl = (size_t)(suf - name) - pl;
	if (r->has_x != (xl > 0) || xl >= xsize)
		return 0;
	memcpy(x, name + pl, xl);
	x[xl] = 0;
	return 1;
}

int af_dropping_match(const char *name, char *x, size_t xsize, size_t *row)
{
	for (size_t i = 0; i < af_dropping_rows(); i++) {
		if (!match_row(&rows[i], name, x, xsize))
			continue;
		if (row)
			*row = i;
		return 1;
	}
	return 0;
}

int af_dropping_is(const char *name, int (*exists)(void *ctx, const char *x), void *ctx)
{
	char x[256];
	if (!name[0] || strlen(name) >= sizeof(x))
		return 0;
	for (size_t i = 0; i < af_dropping_rows(); i++) {
		if (!match_row(&rows[i], name, x, sizeof(x)))
			continue;
		/* X~ of a name that is itself a dropping (x.swp~) or of a real name */
		if (!rows[i].has_x || exists(ctx, x))
			return 1;
	}
	return 0;
}
