/* The listing of a folder of .animfs/gltf/ (previews.h): the folder it mirrors, listed as
 * that folder is, with each view that has a preview named "<view>.glb" and each folder
 * (a backing folder, a container) by its own name; nothing else. A name is resolved as a
 * stat of it would be: no preview is made to be listed. */
#include <stdio.h>
#include <string.h>

#include "animfs/codec.h"
#include "animfs/fs.h"
#include "previews.h"
#include "res.h"
#include "view.h"

#define GLTF_DIR AF_CTL_DIR "/" AF_CTL_GLTF

int af_previews_mirror(const char *rel, char *path, size_t size)
{
	size_t k = strlen(GLTF_DIR);
	if (strncmp(rel, GLTF_DIR, k) || (rel[k] && rel[k] != '/'))
		return 0;
	return snprintf(path, size, "/%s", rel[k] ? rel + k + 1 : "") < (int)size;
}

int af_previews_fill(void *buf, const char *name, const struct stat *st, off_t off,
		     enum fuse_fill_dir_flags flags)
{
	struct af_previews *p = buf;
	char path[4400], glb[300];
	struct af_res r;
	(void)st, (void)off, (void)flags;
	if (!strcmp(name, ".") || !strcmp(name, "..") || strlen(name) + 5 > sizeof(glb))
		return 0;
	snprintf(path, sizeof(path), "%s%s%s", p->dir, strcmp(p->dir, "/") ? "/" : "", name);
	if (af_view_resolve(p->fs, path, &r))
		return 0;
	if (r.kind == AF_K_DIR || r.kind == AF_K_ARCDIR)
		return p->filler(p->buf, name, NULL, 0, 0);
	if ((r.kind != AF_K_VIEW && r.kind != AF_K_SPLITDIR) || !r.info.codec || !r.info.codec->scene)
		return 0; /* a format with nothing to preview has no preview */
	snprintf(glb, sizeof(glb), "%s.glb", name);
	return p->filler(p->buf, glb, NULL, 0, 0);
}
