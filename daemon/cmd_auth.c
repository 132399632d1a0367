/*
 * cmd_auth.c: the auth commands (mapmon(8), AUTHENTICATION), with Ceph's
 * words: the arguments "entity" and "caps" (service and cap strings in
 * pairs), checked by the table; the monitor core checks the names and the
 * caps, and answers as Ceph's AuthMonitor does.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "daemon/cmd_priv.h"

/* The "caps" strings of cmd (checked: an array of strings), borrowed. */
static const char **
cmd_auth_caps_of(json_t *cmd, size_t *n)
{
	json_t *a = json_object_get(cmd, "caps"), *v;
	const char **caps;
	size_t i;

	*n = json_array_size(a);
	caps = xcalloc(*n ? *n : 1, sizeof *caps);
	json_array_foreach(a, i, v)
		caps[i] = json_string_value(v);
	return caps;
}

static void
cmd_auth_answer(struct cmd_req *r, int rc, json_t *out, char *status)
{
	cmd_reply(r, rc, status, rc == 0 ? out : NULL);
	if (rc != 0)
		json_decref(out);
	free(status);
}

void
cmd_auth_add(struct cmd_req *r, json_t *cmd)
{
	size_t n;
	const char **caps = cmd_auth_caps_of(cmd, &n);

	mon_auth_add(r->ctx->mon, cmd_get_str(cmd, "entity"), caps, n, NULL,
	    cmd_done, r);
	free(caps);
}

void
cmd_auth_get_or_create(struct cmd_req *r, json_t *cmd)
{
	size_t n;
	const char **caps = cmd_auth_caps_of(cmd, &n);

	mon_auth_get_or_create(r->ctx->mon, cmd_get_str(cmd, "entity"), caps, n,
	    cmd_done, r);
	free(caps);
}

void
cmd_auth_caps(struct cmd_req *r, json_t *cmd)
{
	size_t n;
	const char **caps = cmd_auth_caps_of(cmd, &n);

	mon_auth_caps(r->ctx->mon, cmd_get_str(cmd, "entity"), caps, n,
	    cmd_done, r);
	free(caps);
}

void
cmd_auth_get(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_auth_get_json(r->ctx->mon, cmd_get_str(cmd, "entity"), &out,
	    &status);
	cmd_auth_answer(r, rc, out, status);
}

void
cmd_auth_get_key(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_auth_get_key_json(r->ctx->mon, cmd_get_str(cmd, "entity"),
	    &out, &status);
	cmd_auth_answer(r, rc, out, status);
}

void
cmd_auth_ls(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_reply(r, 0,
	    "installed auth entries:", mon_auth_ls_json(r->ctx->mon));
}

void
cmd_auth_rm(struct cmd_req *r, json_t *cmd)
{
	mon_auth_rm(r->ctx->mon, cmd_get_str(cmd, "entity"), cmd_done, r);
}

void
cmd_auth_rotate(struct cmd_req *r, json_t *cmd)
{
	mon_auth_rotate(r->ctx->mon, cmd_get_str(cmd, "entity"), cmd_done, r);
}
