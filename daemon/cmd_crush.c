/*
 * cmd_crush.c: the placement hierarchy's commands (`osd crush ...') and
 * `osd map', on the wire; the monitor core does the work (mon_crush.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "daemon/cmd_priv.h"

/* The request of the command's arguments (strings stay cmd's). */
static int
cmd_crush_req(struct cmd_req *r, json_t *cmd, enum mon_crush_opcode op,
    struct mon_crush_req *q, const char **loc)
{
	memset(q, 0, sizeof *q);
	q->op = op;
	q->name = cmd_get_str(cmd, "name");
	if (q->name == NULL)
		q->name = cmd_get_str(cmd, "id");
	q->type = cmd_get_str(cmd, "type");
	q->root = cmd_get_str(cmd, "root");
	q->cls = cmd_get_str(cmd, "class");
	q->weight = json_number_value(json_object_get(cmd, "weight"));
	q->loc = loc;
	return cmd_get_loc(r, cmd, "args", loc, &q->nloc);
}

/* The write op of the command's prefix. */
static void
cmd_crush_write(struct cmd_req *r, json_t *cmd, enum mon_crush_opcode op)
{
	struct mon_crush_req q;
	const char *loc[CMD_LOC_MAX];

	if (cmd_crush_req(r, cmd, op, &q, loc) == -1)
		return;
	mon_crush_op(r->ctx->mon, &q, cmd_done, r);
}

void
cmd_crush_add_bucket(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_ADD_BUCKET);
}

void
cmd_crush_move(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_MOVE);
}

void
cmd_crush_remove(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_REMOVE);
}

void
cmd_crush_add(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_ADD);
}

void
cmd_crush_set(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_SET);
}

void
cmd_crush_create_or_move(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_CREATE_OR_MOVE);
}

void
cmd_crush_reweight(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_REWEIGHT);
}

void
cmd_crush_rule_create(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_RULE_CREATE);
}

void
cmd_crush_rule_rm(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_write(r, cmd, MON_CRUSH_RULE_RM);
}

/*
 * set-device-class and rm-device-class: "ids" are OSDs as Ceph takes them
 * ("osd.N" or "N"); a word that is neither is -EINVAL naming it.
 */
static void
cmd_crush_class(struct cmd_req *r, json_t *cmd, enum mon_crush_opcode op)
{
	struct mon_crush_req q;
	const char *loc[CMD_LOC_MAX];
	json_t *ids = json_object_get(cmd, "ids"), *v;
	int32_t *osds;
	const char *s;
	char *end;
	size_t i;
	long id;

	if (cmd_crush_req(r, cmd, op, &q, loc) == -1)
		return;
	osds = xcalloc(json_array_size(ids) + 1, sizeof *osds);
	json_array_foreach(ids, i, v) {
		s = json_string_value(v);
		if (strncmp(s, "osd.", 4) == 0)
			s += 4;
		id = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
		if (id < 0 || *end != '\0' || id >= OSDMAP_MAX_OSD) {
			cmd_replyf(r, -EINVAL, NULL,
			    "unable to parse osd id:\"%.*s\"", 64,
			    json_string_value(v));
			free(osds);
			return;
		}
		osds[i] = (int32_t)id;
	}
	q.osds = osds;
	q.nosds = json_array_size(ids);
	mon_crush_op(r->ctx->mon, &q, cmd_done, r);
	free(osds);
}

void
cmd_crush_set_class(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_class(r, cmd, MON_CRUSH_SET_CLASS);
}

void
cmd_crush_rm_class(struct cmd_req *r, json_t *cmd)
{
	cmd_crush_class(r, cmd, MON_CRUSH_RM_CLASS);
}

void
cmd_crush_class_ls(struct cmd_req *r, json_t *cmd)
{
	json_t *a = mon_crush_class_ls_json(r->ctx->mon);

	(void)cmd;
	cmd_replyf(r, 0, a, "%zu classes", json_array_size(a));
}

void
cmd_crush_tree(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_reply(r, 0, "osd crush tree",
	    mon_crush_tree_json(mon_osdmap(r->ctx->mon), 0, 0));
}

void
cmd_crush_dump(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_reply(r, 0, "osd crush dump", mon_crush_dump_json(r->ctx->mon));
}

void
cmd_crush_rule_ls(struct cmd_req *r, json_t *cmd)
{
	json_t *a = mon_crush_rule_ls_json(r->ctx->mon);

	(void)cmd;
	cmd_replyf(r, 0, a, "%zu rules", json_array_size(a));
}

void
cmd_crush_rule_dump(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_crush_rule_dump_json(r->ctx->mon, cmd_get_str(cmd, "name"),
	    &out, &status);
	cmd_reply(r, rc, status, rc == 0 ? out : NULL);
	free(status);
}

void
cmd_crush_osd_map(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_osd_map_json(r->ctx->mon, cmd_get_str(cmd, "pool"),
	    cmd_get_str(cmd, "object"), &out, &status);
	cmd_reply(r, rc, status, rc == 0 ? out : NULL);
	free(status);
}
