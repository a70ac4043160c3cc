/* Where a YAML syntax error is: libyaml's marks (its context and problem) turned into
 * the line and column of the mistake, for af_ydoc_parse's message. Private to core. */
#ifndef ANIMFS_YAMLERR_H
#define ANIMFS_YAMLERR_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "animfs/diag.h"

/* Report the error parser p stopped on while reading text (n bytes) into d; returns
 * AF_EINVAL. libyaml notices most slips at the next token, often on the next line:
 * this names the place where the mistake is (see yamlerr.c for each case). */
int af_yerr_report(const uint8_t *text, size_t n, const yaml_parser_t *p, struct af_diag *d);

#endif
