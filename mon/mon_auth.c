/*
 * mon_auth.c: the authentication entities: names, caps, the committed
 * table, and the auth commands.
 *
 * The committed entities are one array in Ceph's order (mon., the OSDs,
 * the clients, each by name), searched by bisection: a lookup is a few
 * string compares, cheap enough for every request's cap check.  A write
 * validates against mon_auth_view() (what the pending, in-flight and
 * applying proposals change, over the committed), stages the entity whole
 * in the pending proposal (one change per entity a proposal), and answers
 * after the commit, which the apply copies into the array.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "common/b64.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"

#define MON_AUTH_OSD_MAX 65535

/* Ceph's order of entity types: mon, osd, client. */
static int
mon_auth_type_rank(const char *name)
{
	if (strncmp(name, "mon.", 4) == 0)
		return 0;
	if (strncmp(name, "osd.", 4) == 0)
		return 1;
	return 2;
}

static int
mon_auth_cmp(const char *a, const char *b)
{
	int ra = mon_auth_type_rank(a), rb = mon_auth_type_rank(b);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a, b);
}

int
mon_auth_name_check(const char *name, char **cause)
{
	const char *id;
	size_t n = strlen(name), i;

	if (n > MON_AUTH_NAME_MAX)
		goto bad;
	if (strcmp(name, "mon.") == 0)
		return 0;
	if (strncmp(name, "osd.", 4) == 0) {
		id = name + 4;
		if (*id == '\0' || strlen(id) > 5 || (id[0] == '0' && id[1]))
			goto bad;
		for (i = 0; id[i] != '\0'; i++)
			if (!isdigit((unsigned char)id[i]))
				goto bad;
		if (atoi(id) > MON_AUTH_OSD_MAX)
			goto bad;
		return 0;
	}
	if (strncmp(name, "client.", 7) == 0 && name[7] != '\0') {
		for (i = 7; i < n; i++)
			if (!isalnum((unsigned char)name[i]) &&
			    strchr("_-.@", name[i]) == NULL)
				goto bad;
		return 0;
	}
bad:
	xasprintf(cause,
	    "bad entity name '%.80s' (expected client.NAME, "
	    "osd.ID or mon.; at most %d characters)",
	    name, MON_AUTH_NAME_MAX);
	return -1;
}

/* One "allow ..." grant of a mon cap. */
static int
mon_auth_grant(const char *cap, const char *g, size_t len, unsigned *allow,
    char **cause)
{
	char *w = xstrndup(g, len), *p, *rest;
	int rc = -1;

	p = w;
	while (*p == ' ' || *p == '\t')
		p++;
	rest = p + strlen(p);
	while (rest > p && (rest[-1] == ' ' || rest[-1] == '\t'))
		*--rest = '\0';
	if (strncmp(p, "allow", 5) != 0 ||
	    (p[5] != ' ' && p[5] != '\t' && p[5] != '*')) {
		xasprintf(cause,
		    "mon cap '%.80s': a grant must start with "
		    "'allow', as in 'allow r'",
		    cap);
		goto out;
	}
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strcmp(p, "*") == 0) {
		*allow |= MON_CAP_R | MON_CAP_W | MON_CAP_X;
		rc = 0;
		goto out;
	}
	if (strncmp(p, "profile", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
		p += 7;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strcmp(p, "osd") != 0) {
			xasprintf(cause,
			    "mon cap '%.80s': unknown profile "
			    "'%.40s' (mapmon has profile osd)",
			    cap, p);
			goto out;
		}
		*allow |= MON_CAP_R | MON_CAP_OSD;
		rc = 0;
		goto out;
	}
	if (*p == '\0') {
		xasprintf(cause,
		    "mon cap '%.80s': 'allow' without what it "
		    "allows (r, w, x, * or profile osd)",
		    cap);
		goto out;
	}
	for (; *p != '\0'; p++) {
		switch (*p) {
		case 'r':
			*allow |= MON_CAP_R;
			break;
		case 'w':
			*allow |= MON_CAP_W;
			break;
		case 'x':
			*allow |= MON_CAP_X;
			break;
		default:
			xasprintf(cause,
			    "mon cap '%.80s': '%c' is not one of "
			    "r, w, x (mapmon has allow r|w|x|*|profile osd)",
			    cap, isprint((unsigned char)*p) ? *p : '?');
			goto out;
		}
	}
	rc = 0;
out:
	free(w);
	return rc;
}

int
mon_auth_cap_parse(const char *service, const char *cap, unsigned *allow,
    char **cause)
{
	const char *g, *end;
	unsigned bits = 0;

	if (allow != NULL)
		*allow = 0;
	if (strcmp(service, "mon") != 0) {
		if (strcmp(service, "osd") != 0 &&
		    strcmp(service, "mgr") != 0 &&
		    strcmp(service, "mds") != 0) {
			xasprintf(cause, "unknown cap type '%.40s'", service);
			return -1;
		}
		/* Kept for Ceph's tools, not enforced here. */
		if (*cap != '\0' && strncmp(cap, "allow", 5) != 0) {
			xasprintf(cause,
			    "%s cap '%.80s' must start with "
			    "'allow'",
			    service, cap);
			return -1;
		}
		return 0;
	}
	for (g = cap; *g != '\0'; g = *end ? end + 1 : end) {
		end = g + strcspn(g, ",;");
		if (mon_auth_grant(cap, g, (size_t)(end - g), &bits, cause) ==
		    -1)
			return -1;
	}
	if (allow != NULL)
		*allow = bits;
	return 0;
}

void
mon_auth_entity_derive(struct mon_auth_entity *e)
{
	size_t i;

	e->allow = 0;
	for (i = 0; i < e->ncaps; i++)
		if (strcmp(e->caps[i].service, "mon") == 0 &&
		    mon_auth_cap_parse("mon", e->caps[i].cap, &e->allow,
			NULL) == -1)
			e->allow = 0;
	e->osd = strncmp(e->name, "osd.", 4) == 0 ? atoi(e->name + 4) : -1;
}

void
mon_auth_entity_copy(struct mon_auth_entity *dst,
    const struct mon_auth_entity *src)
{
	size_t i;

	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->caps = xcalloc(src->ncaps ? src->ncaps : 1, sizeof *dst->caps);
	for (i = 0; i < src->ncaps; i++) {
		dst->caps[i].service = xstrdup(src->caps[i].service);
		dst->caps[i].cap = xstrdup(src->caps[i].cap);
	}
}

/* Index of name in the committed array, or where it would go (~index). */
static size_t
mon_auth_search(const struct mon *m, const char *name, int *found)
{
	size_t lo = 0, hi = m->nauth, mid;
	int c;

	*found = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = mon_auth_cmp(name, m->auth[mid].name);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

const struct mon_auth_entity *
mon_auth_find(const struct mon *m, const char *name)
{
	int found;
	size_t i = mon_auth_search(m, name, &found);

	return found ? &m->auth[i] : NULL;
}

size_t
mon_auth_count(const struct mon *m)
{
	return m->nauth;
}

const struct mon_auth_entity *
mon_auth_at(const struct mon *m, size_t i)
{
	return i < m->nauth ? &m->auth[i] : NULL;
}

/* p's change of name, or NULL. */
static const struct mon_auth_change *
mon_auth_change_of(const struct mon_proposal *p, const char *name)
{
	size_t i;

	if (p == NULL)
		return NULL;
	for (i = 0; i < p->nauth; i++)
		if (strcmp(p->auth[i].e.name, name) == 0)
			return &p->auth[i];
	return NULL;
}

const struct mon_auth_entity *
mon_auth_view(const struct mon *m, const char *name)
{
	const struct mon_proposal *ps[3] = { m->pending, m->inflight,
		m->applying };
	const struct mon_auth_change *c;
	size_t i;

	for (i = 0; i < nitems(ps); i++)
		if ((c = mon_auth_change_of(ps[i], name)) != NULL)
			return c->removed ? NULL : &c->e;
	return mon_auth_find(m, name);
}

/* name's key stopped working: its sessions are to end (the notify). */
static void
mon_auth_ended(struct mon *m, const char *name)
{
	m->auth_ended = xreallocarray(m->auth_ended, m->nauth_ended + 1,
	    sizeof *m->auth_ended);
	m->auth_ended[m->nauth_ended++] = xstrdup(name);
}

void
mon_auth_ended_clear(struct mon *m)
{
	size_t i;

	for (i = 0; i < m->nauth_ended; i++)
		free(m->auth_ended[i]);
	free(m->auth_ended);
	m->auth_ended = NULL;
	m->nauth_ended = 0;
}

void
mon_auth_ended_since(struct mon *m, struct mon_auth_entity *old, size_t nold)
{
	const struct mon_auth_entity *now;
	size_t i;

	for (i = 0; i < nold; i++) {
		now = mon_auth_find(m, old[i].name);
		if (now == NULL ||
		    CRYPTO_memcmp(now->key, old[i].key, MON_AUTH_KEY_LEN) != 0)
			mon_auth_ended(m, old[i].name);
		mon_auth_entity_clear(&old[i]);
	}
	free(old);
}

void
mon_auth_apply(struct mon *m, const struct mon_proposal *p)
{
	const struct mon_auth_change *c;
	size_t i, at;
	int found;

	for (i = 0; i < p->nauth; i++) {
		c = &p->auth[i];
		at = mon_auth_search(m, c->e.name, &found);
		/* Removed, or another key (rotate): its sessions end. */
		if (found &&
		    (c->removed ||
			CRYPTO_memcmp(m->auth[at].key, c->e.key,
			    MON_AUTH_KEY_LEN) != 0))
			mon_auth_ended(m, c->e.name);
		if (c->removed) {
			if (!found)
				continue;
			mon_auth_entity_clear(&m->auth[at]);
			memmove(&m->auth[at], &m->auth[at + 1],
			    (m->nauth - at - 1) * sizeof *m->auth);
			m->nauth--;
			continue;
		}
		if (found)
			mon_auth_entity_clear(&m->auth[at]);
		else {
			m->auth = xreallocarray(m->auth, m->nauth + 1,
			    sizeof *m->auth);
			memmove(&m->auth[at + 1], &m->auth[at],
			    (m->nauth - at) * sizeof *m->auth);
			m->nauth++;
		}
		mon_auth_entity_copy(&m->auth[at], &c->e);
	}
}

void
mon_auth_clear(struct mon *m)
{
	size_t i;

	for (i = 0; i < m->nauth; i++)
		mon_auth_entity_clear(&m->auth[i]);
	free(m->auth);
	m->auth = NULL;
	m->nauth = 0;
	mon_auth_ended_clear(m);
}

int
mon_auth_load(struct mon *m, char **cause)
{
	struct store_iter *it;
	struct mon_auth_entity e;
	uint8_t lo[1] = { KEYS_AUTH }, hi[1] = { KEYS_AUTH + 1 };
	const void *key, *val;
	size_t klen, vlen, at;
	char name[KEYS_AUTH_MAX], *why = NULL;
	int rc, found;

	if ((it = store_iter_new(m->store, lo, 1, hi, 1, &why)) == NULL) {
		*cause = why;
		return -1;
	}
	while ((rc = store_iter_next(it, &key, &klen, &val, &vlen)) == 1) {
		if (klen < 2 || klen > KEYS_AUTH_MAX) {
			store_key_corrupt(cause, store_path(m->store), key,
			    klen, "auth key of the wrong length");
			store_iter_free(it);
			return -1;
		}
		memcpy(name, (const char *)key + 1, klen - 1);
		name[klen - 1] = '\0';
		if (mon_record_auth_decode(name, val, vlen, &e, &why) == -1) {
			store_key_corrupt(cause, store_path(m->store), key,
			    klen, "%s", why);
			free(why);
			store_iter_free(it);
			return -1;
		}
		mon_auth_entity_derive(&e);
		/* Key order is not Ceph's order: insert in place. */
		at = mon_auth_search(m, e.name, &found);
		m->auth = xreallocarray(m->auth, m->nauth + 1, sizeof *m->auth);
		memmove(&m->auth[at + 1], &m->auth[at],
		    (m->nauth - at) * sizeof *m->auth);
		m->auth[at] = e;
		m->nauth++;
	}
	return mon_scan_end(m, it, rc, "the auth entities", cause);
}

json_t *
mon_auth_entity_json(const struct mon_auth_entity *e)
{
	json_t *caps = json_object(), *o;
	char *key = b64_encode(e->key, MON_AUTH_KEY_LEN);
	size_t i;

	for (i = 0; i < e->ncaps; i++)
		json_object_set_new(caps, e->caps[i].service,
		    json_string(e->caps[i].cap));
	o = json_pack("{s:s, s:s, s:o}", "entity", e->name, "key", key, "caps",
	    caps);
	OPENSSL_cleanse(key, strlen(key));
	free(key);
	return o;
}

/* The keyring of one entity, as `auth get' gives it. */
static json_t *
mon_auth_keyring_json(const struct mon_auth_entity *e)
{
	return json_pack("[o]", mon_auth_entity_json(e));
}

/* Answer at once (refusals and no-ops). */
static void mon_auth_now(mon_done_cb *done, void *arg, int rc, json_t *data,
    const char *fmt, ...) printflike(5, 6);

static void
mon_auth_now(mon_done_cb *done, void *arg, int rc, json_t *data,
    const char *fmt, ...)
{
	va_list ap;
	char *status;

	va_start(ap, fmt);
	xvasprintf(&status, fmt, ap);
	va_end(ap);
	done(arg, rc, status, data);
	free(status);
}

/*
 * The name and the caps of a command, checked, into e (name and caps set,
 * caps sorted by service, a service given twice: the last wins, as in
 * Ceph's map).  0, or -1 answered.
 */
static int
mon_auth_parse(const char *name, const char *const *caps, size_t ncaps,
    struct mon_auth_entity *e, mon_done_cb *done, void *arg)
{
	struct mon_auth_cap c;
	char *why = NULL;
	size_t i, j;

	memset(e, 0, sizeof *e);
	if (mon_auth_name_check(name, &why) == -1) {
		mon_auth_now(done, arg, -EINVAL, NULL, "%s", why);
		free(why);
		return -1;
	}
	if (ncaps % 2 != 0) {
		mon_auth_now(done, arg, -EINVAL, NULL,
		    "bad capabilities "
		    "request; odd number of arguments");
		return -1;
	}
	for (i = 0; i < ncaps; i += 2) {
		if (mon_auth_cap_parse(caps[i], caps[i + 1], NULL, &why) ==
		    -1) {
			mon_auth_now(done, arg, -EINVAL, NULL, "%s", why);
			free(why);
			return -1;
		}
	}
	e->name = xstrdup(name);
	e->caps = xcalloc(ncaps / 2 + 1, sizeof *e->caps);
	for (i = 0; i < ncaps; i += 2) {
		for (j = 0; j < e->ncaps; j++)
			if (strcmp(e->caps[j].service, caps[i]) == 0)
				break;
		if (j < e->ncaps) {
			free(e->caps[j].cap);
			e->caps[j].cap = xstrdup(caps[i + 1]);
			continue;
		}
		e->caps[e->ncaps].service = xstrdup(caps[i]);
		e->caps[e->ncaps].cap = xstrdup(caps[i + 1]);
		e->ncaps++;
	}
	if (e->ncaps > MON_AUTH_MAX_CAPS) {
		mon_auth_entity_clear(e);
		mon_auth_now(done, arg, -EINVAL, NULL,
		    "more than %d services "
		    "in the caps",
		    MON_AUTH_MAX_CAPS);
		return -1;
	}
	/* In service order, as Ceph's map keeps them. */
	for (i = 1; i < e->ncaps; i++)
		for (j = i; j > 0 &&
		     strcmp(e->caps[j - 1].service, e->caps[j].service) > 0;
		     j--) {
			c = e->caps[j];
			e->caps[j] = e->caps[j - 1];
			e->caps[j - 1] = c;
		}
	return 0;
}

/* The cap of service in e, or NULL. */
static const char *
mon_auth_cap_of(const struct mon_auth_entity *e, const char *service)
{
	size_t i;

	for (i = 0; i < e->ncaps; i++)
		if (strcmp(e->caps[i].service, service) == 0)
			return e->caps[i].cap;
	return NULL;
}

/* A fresh random key; -1 answered when the system cannot give one. */
static int
mon_auth_new_key(uint8_t *key, mon_done_cb *done, void *arg)
{
	if (RAND_bytes(key, MON_AUTH_KEY_LEN) != 1) {
		log_warnx("auth: RAND_bytes failed: no key could be made");
		mon_auth_now(done, arg, -EIO, NULL,
		    "cannot make a key: the "
		    "system's random generator failed");
		return -1;
	}
	return 0;
}

void
mon_auth_add(struct mon *m, const char *name, const char *const *caps,
    size_t ncaps, const uint8_t *key, mon_done_cb *done, void *arg)
{
	const struct mon_auth_entity *cur;
	struct mon_auth_entity e;
	const char *have;
	char status[128];
	size_t i;

	if (mon_auth_parse(name, caps, ncaps, &e, done, arg) == -1)
		return;
	if ((cur = mon_auth_view(m, name)) != NULL) {
		/* Ceph: the same state again is no change; other caps fail. */
		if (cur->ncaps != e.ncaps) {
			mon_auth_now(done, arg, -EINVAL, NULL,
			    "entity %s "
			    "exists but caps do not match",
			    name);
			goto out;
		}
		for (i = 0; i < e.ncaps; i++) {
			have = mon_auth_cap_of(cur, e.caps[i].service);
			if (have == NULL || strcmp(have, e.caps[i].cap) != 0) {
				mon_auth_now(done, arg, -EINVAL, NULL,
				    "entity "
				    "%s exists but cap %s does not match",
				    name, e.caps[i].service);
				goto out;
			}
		}
		if (key != NULL &&
		    CRYPTO_memcmp(key, cur->key, MON_AUTH_KEY_LEN) != 0) {
			mon_auth_now(done, arg, -EEXIST, NULL,
			    "entity %s "
			    "exists but key does not match",
			    name);
			goto out;
		}
		if (cur == mon_auth_find(m, name))
			mon_auth_now(done, arg, 0, NULL, "%s", "");
		else
			mon_stage_done(m, done, arg, "", NULL);
		goto out;
	}
	if (key != NULL)
		memcpy(e.key, key, MON_AUTH_KEY_LEN);
	else if (mon_auth_new_key(e.key, done, arg) == -1)
		goto out;
	mon_stage_auth(m, &e, 0);
	mon_stage_log(m, MON_LOG_INFO, "auth: added %s", name);
	snprintf(status, sizeof status, "added key for %s", name);
	mon_stage_done(m, done, arg, status, NULL);
out:
	mon_auth_entity_clear(&e);
}

void
mon_auth_get_or_create(struct mon *m, const char *name, const char *const *caps,
    size_t ncaps, mon_done_cb *done, void *arg)
{
	const struct mon_auth_entity *cur;
	struct mon_auth_entity e;
	const char *have;
	size_t i;

	if (mon_auth_parse(name, caps, ncaps, &e, done, arg) == -1)
		return;
	if ((cur = mon_auth_view(m, name)) != NULL) {
		for (i = 0; i < e.ncaps; i++) {
			have = mon_auth_cap_of(cur, e.caps[i].service);
			if (have == NULL || strcmp(have, e.caps[i].cap) != 0) {
				mon_auth_now(done, arg, -EINVAL, NULL,
				    "key "
				    "for %s exists but cap %s does not match",
				    name, e.caps[i].service);
				goto out;
			}
		}
		/* Pending: its keyring once it is committed. */
		if (cur == mon_auth_find(m, name))
			mon_auth_now(done, arg, 0, mon_auth_keyring_json(cur),
			    "%s", "");
		else
			mon_stage_done(m, done, arg, "",
			    mon_auth_keyring_json(cur));
		goto out;
	}
	if (mon_auth_new_key(e.key, done, arg) == -1)
		goto out;
	mon_stage_auth(m, &e, 0);
	mon_stage_log(m, MON_LOG_INFO, "auth: added %s", name);
	mon_stage_done(m, done, arg, "", mon_auth_keyring_json(&e));
out:
	mon_auth_entity_clear(&e);
}

void
mon_auth_caps(struct mon *m, const char *name, const char *const *caps,
    size_t ncaps, mon_done_cb *done, void *arg)
{
	const struct mon_auth_entity *cur;
	struct mon_auth_entity e;
	char status[128];

	if (mon_auth_parse(name, caps, ncaps, &e, done, arg) == -1)
		return;
	if ((cur = mon_auth_view(m, name)) == NULL) {
		mon_auth_now(done, arg, -ENOENT, NULL, "couldn't find entry %s",
		    name);
		goto out;
	}
	memcpy(e.key, cur->key, MON_AUTH_KEY_LEN);
	mon_stage_auth(m, &e, 0);
	mon_stage_log(m, MON_LOG_INFO, "auth: caps of %s updated", name);
	snprintf(status, sizeof status, "updated caps for %s", name);
	mon_stage_done(m, done, arg, status, NULL);
out:
	mon_auth_entity_clear(&e);
}

void
mon_auth_rm(struct mon *m, const char *name, mon_done_cb *done, void *arg)
{
	struct mon_auth_entity e;
	char *why = NULL;

	if (mon_auth_name_check(name, &why) == -1) {
		mon_auth_now(done, arg, -EINVAL, NULL, "%s", why);
		free(why);
		return;
	}
	if (mon_auth_view(m, name) == NULL) {
		mon_auth_now(done, arg, 0, NULL, "entity %s does not exist",
		    name);
		return;
	}
	memset(&e, 0, sizeof e);
	e.name = (char *)name;
	mon_stage_auth(m, &e, 1);
	mon_stage_log(m, MON_LOG_INFO, "auth: removed %s", name);
	mon_stage_done(m, done, arg, "updated", NULL);
}

void
mon_auth_rotate(struct mon *m, const char *name, mon_done_cb *done, void *arg)
{
	const struct mon_auth_entity *cur;
	struct mon_auth_entity e;
	char *why = NULL, status[128];

	if (mon_auth_name_check(name, &why) == -1) {
		mon_auth_now(done, arg, -EINVAL, NULL, "%s", why);
		free(why);
		return;
	}
	if ((cur = mon_auth_view(m, name)) == NULL) {
		mon_auth_now(done, arg, -ENOENT, NULL,
		    "entity %s does not "
		    "exist",
		    name);
		return;
	}
	mon_auth_entity_copy(&e, cur);
	if (mon_auth_new_key(e.key, done, arg) == 0) {
		mon_stage_auth(m, &e, 0);
		mon_stage_log(m, MON_LOG_INFO, "auth: rotated the key of %s",
		    name);
		snprintf(status, sizeof status, "rotated key for %s", name);
		mon_stage_done(m, done, arg, status, mon_auth_keyring_json(&e));
	}
	mon_auth_entity_clear(&e);
}

int
mon_auth_get_json(struct mon *m, const char *name, json_t **out, char **status)
{
	const struct mon_auth_entity *e;

	*out = NULL;
	if (mon_auth_name_check(name, status) == -1)
		return -EINVAL;
	if ((e = mon_auth_find(m, name)) == NULL) {
		xasprintf(status, "failed to find %s in keyring", name);
		return -ENOENT;
	}
	*out = mon_auth_keyring_json(e);
	xasprintf(status, "exported keyring for %s", name);
	return 0;
}

int
mon_auth_get_key_json(struct mon *m, const char *name, json_t **out,
    char **status)
{
	const struct mon_auth_entity *e;
	char *key;

	*out = NULL;
	if (mon_auth_name_check(name, status) == -1)
		return -EINVAL;
	if ((e = mon_auth_find(m, name)) == NULL) {
		xasprintf(status, "don't have %s", name);
		return -ENOENT;
	}
	key = b64_encode(e->key, MON_AUTH_KEY_LEN);
	*out = json_pack("{s:s}", "key", key);
	OPENSSL_cleanse(key, strlen(key));
	free(key);
	*status = xstrdup("");
	return 0;
}

/*
 * Not mon.: Ceph keeps the monitors' key in their keyring, not in
 * AuthMonitor's database (Monitor.cc, extract_save_mon_key), so its
 * `auth ls' never lists it; `auth get mon.' still gives it.
 */
json_t *
mon_auth_ls_json(struct mon *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->nauth; i++)
		if (strcmp(m->auth[i].name, "mon.") != 0)
			json_array_append_new(a,
			    mon_auth_entity_json(&m->auth[i]));
	return json_pack("{s:o}", "auth_dump", a);
}
