/* keyring.c: keyring files (see keyring.h for the layout). */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "common/b64.h"
#include "common/mapmon.h"
#include "net/keyring.h"

#define KEYRING_LINE_MAX 4096

struct keyring *
keyring_new(void)
{
	return xcalloc(1, sizeof(struct keyring));
}

static void
keyring_entity_clear(struct keyring_entity *e)
{
	size_t i;

	free(e->name);
	for (i = 0; i < e->ncaps; i++) {
		free(e->caps[i].service);
		free(e->caps[i].cap);
	}
	free(e->caps);
	OPENSSL_cleanse(e->key, sizeof e->key);
	memset(e, 0, sizeof *e);
}

void
keyring_free(struct keyring *k)
{
	size_t i;

	if (k == NULL)
		return;
	for (i = 0; i < k->n; i++)
		keyring_entity_clear(&k->entities[i]);
	free(k->entities);
	free(k);
}

const struct keyring_entity *
keyring_find(const struct keyring *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->entities[i].name, name) == 0)
			return &k->entities[i];
	return NULL;
}

/* A new entity at the end of k, named name, with no key or caps yet. */
static struct keyring_entity *
keyring_append(struct keyring *k, const char *name)
{
	struct keyring_entity *e;

	k->entities = xreallocarray(k->entities, k->n + 1, sizeof *k->entities);
	e = &k->entities[k->n++];
	memset(e, 0, sizeof *e);
	e->name = xstrdup(name);
	return e;
}

static void
keyring_add_cap(struct keyring_entity *e, const char *service, const char *cap)
{
	size_t i;

	for (i = 0; i < e->ncaps; i++) {
		if (strcmp(e->caps[i].service, service) == 0) {
			free(e->caps[i].cap);
			e->caps[i].cap = xstrdup(cap);
			return;
		}
	}
	e->caps = xreallocarray(e->caps, e->ncaps + 1, sizeof *e->caps);
	e->caps[e->ncaps].service = xstrdup(service);
	e->caps[e->ncaps].cap = xstrdup(cap);
	e->ncaps++;
}

void
keyring_add(struct keyring *k, const char *name,
    const uint8_t key[KEYRING_KEY_LEN], const char *const *caps, size_t ncaps)
{
	struct keyring_entity *e = NULL;
	size_t i;

	for (i = 0; i < k->n; i++) {
		if (strcmp(k->entities[i].name, name) == 0) {
			e = &k->entities[i];
			keyring_entity_clear(e);
			e->name = xstrdup(name);
			break;
		}
	}
	if (e == NULL)
		e = keyring_append(k, name);
	memcpy(e->key, key, KEYRING_KEY_LEN);
	for (i = 0; i < ncaps; i++)
		keyring_add_cap(e, caps[2 * i], caps[2 * i + 1]);
}

/* Trim blanks at both ends of s in place; returns the new start. */
static char *
keyring_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (
	    end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* A value without its optional double quotes; NULL when one is missing. */
static char *
keyring_unquote(char *v)
{
	size_t n = strlen(v);

	if (n == 0 || (v[0] != '"' && v[n - 1] != '"'))
		return v;
	if (n < 2 || v[0] != '"' || v[n - 1] != '"')
		return NULL;
	v[n - 1] = '\0';
	return v + 1;
}

static int
keyring_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > KEYRING_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '[' || s[i] == ']')
			return 0;
	return 1;
}

/* One "NAME = VALUE" line of a section. */
static int
keyring_setting(struct keyring_entity *e, int *has_key, char *line,
    const char *where, int ln, char **cause)
{
	char *eq, *name, *value, *svc, *why = NULL;

	if ((eq = strchr(line, '=')) == NULL) {
		xasprintf(cause,
		    "%s:%d: expected NAME = VALUE, as in key = "
		    "BASE64",
		    where, ln);
		return -1;
	}
	*eq = '\0';
	name = keyring_trim(line);
	if ((value = keyring_unquote(keyring_trim(eq + 1))) == NULL) {
		xasprintf(cause,
		    "%s:%d: a value with one double quote: it "
		    "needs both",
		    where, ln);
		return -1;
	}
	if (strcmp(name, "key") == 0) {
		if (*has_key) {
			xasprintf(cause, "%s:%d: a second key for [%s]", where,
			    ln, e->name);
			return -1;
		}
		if (b64_decode_exact(value, e->key, KEYRING_KEY_LEN, &why) ==
		    -1) {
			xasprintf(cause, "%s:%d: key of [%s]: %s%s", where, ln,
			    e->name, why,
			    strstr(why, "of 28 bytes") != NULL ?
				" (a Ceph key? mapmon keys are 32 bytes)" :
				"");
			free(why);
			return -1;
		}
		*has_key = 1;
		return 0;
	}
	if (strncmp(name, "caps", 4) == 0 &&
	    (name[4] == ' ' || name[4] == '\t')) {
		svc = keyring_trim(name + 4);
		if (*svc == '\0' || strpbrk(svc, " \t") != NULL) {
			xasprintf(cause,
			    "%s:%d: expected caps SERVICE = "
			    "\"CAPS\", as in caps mon = \"allow r\"",
			    where, ln);
			return -1;
		}
		keyring_add_cap(e, svc, value);
		return 0;
	}
	xasprintf(cause,
	    "%s:%d: unknown setting '%.64s' (a keyring holds "
	    "key = and caps SERVICE = lines)",
	    where, ln, name);
	return -1;
}

/* The entity being read is complete: it must have a key. */
static int
keyring_end_section(const struct keyring_entity *e, int has_key,
    const char *where, int ln, char **cause)
{
	if (e != NULL && !has_key) {
		xasprintf(cause, "%s:%d: [%s] has no key = line", where, ln,
		    e->name);
		return -1;
	}
	return 0;
}

int
keyring_parse(const char *p, size_t len, const char *where,
    struct keyring **out, char **cause)
{
	struct keyring *k = keyring_new();
	struct keyring_entity *e = NULL;
	const char *end = p + len, *nl;
	char buf[KEYRING_LINE_MAX + 1], *line, *close_;
	size_t n;
	int ln = 0, has_key = 0, section_ln = 0;

	while (p < end) {
		ln++;
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (n > KEYRING_LINE_MAX) {
			xasprintf(cause, "%s:%d: line longer than %d bytes",
			    where, ln, KEYRING_LINE_MAX);
			goto fail;
		}
		if (memchr(p, '\0', n) != NULL) {
			xasprintf(cause, "%s:%d: a NUL byte: not a keyring",
			    where, ln);
			goto fail;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		p = nl != NULL ? nl + 1 : end;
		line = keyring_trim(buf);
		if (*line == '\0' || *line == '#' || *line == ';')
			continue;
		if (*line == '[') {
			if (keyring_end_section(e, has_key, where, section_ln,
				cause) == -1)
				goto fail;
			if ((close_ = strchr(line, ']')) == NULL ||
			    *keyring_trim(close_ + 1) != '\0') {
				xasprintf(cause,
				    "%s:%d: expected [NAME], as in "
				    "[client.admin]",
				    where, ln);
				goto fail;
			}
			*close_ = '\0';
			line = keyring_trim(line + 1);
			if (!keyring_name_ok(line)) {
				xasprintf(cause,
				    "%s:%d: bad entity name "
				    "'%.80s': 1 to %d printable characters, no "
				    "blanks",
				    where, ln, line, KEYRING_NAME_MAX);
				goto fail;
			}
			if (keyring_find(k, line) != NULL) {
				xasprintf(cause, "%s:%d: [%s] is given twice",
				    where, ln, line);
				goto fail;
			}
			e = keyring_append(k, line);
			has_key = 0;
			section_ln = ln;
			continue;
		}
		if (e == NULL) {
			xasprintf(cause,
			    "%s:%d: a setting before any "
			    "[NAME] section",
			    where, ln);
			goto fail;
		}
		if (keyring_setting(e, &has_key, line, where, ln, cause) == -1)
			goto fail;
	}
	if (keyring_end_section(e, has_key, where, section_ln, cause) == -1)
		goto fail;
	OPENSSL_cleanse(buf, sizeof buf);
	*out = k;
	return 0;
fail:
	OPENSSL_cleanse(buf, sizeof buf);
	keyring_free(k);
	return -1;
}

int
keyring_load(const char *path, struct keyring **out, char **cause)
{
	struct stat st;
	char *text;
	ssize_t r;
	size_t got = 0;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		xasprintf(cause, "keyring %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		xasprintf(cause, "keyring %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		xasprintf(cause, "keyring %s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH)) {
		xasprintf(cause,
		    "keyring %s is readable by group or others "
		    "(mode %04o); it holds secret keys: chmod 600 %s",
		    path, (unsigned)(st.st_mode & 07777), path);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		xasprintf(cause,
		    "keyring %s is writable by group or others "
		    "(mode %04o): chmod 600 %s",
		    path, (unsigned)(st.st_mode & 07777), path);
		close(fd);
		return -1;
	}
	if (st.st_size > KEYRING_MAX_FILE) {
		xasprintf(cause, "keyring %s: larger than %d bytes", path,
		    KEYRING_MAX_FILE);
		close(fd);
		return -1;
	}
	text = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		r = read(fd, text + got, (size_t)st.st_size - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			xasprintf(cause, "keyring %s: %s", path,
			    strerror(errno));
			OPENSSL_cleanse(text, got);
			free(text);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	rc = keyring_parse(text, got, path, out, cause);
	OPENSSL_cleanse(text, got);
	free(text);
	return rc;
}

char *
keyring_format(const struct keyring *k)
{
	const struct keyring_entity *e;
	char *s = xstrdup(""), *next, *key;
	size_t i, j;

	for (i = 0; i < k->n; i++) {
		e = &k->entities[i];
		key = b64_encode(e->key, KEYRING_KEY_LEN);
		xasprintf(&next, "%s[%s]\n\tkey = %s\n", s, e->name, key);
		OPENSSL_cleanse(key, strlen(key));
		free(key);
		OPENSSL_cleanse(s, strlen(s));
		free(s);
		s = next;
		for (j = 0; j < e->ncaps; j++) {
			xasprintf(&next, "%s\tcaps %s = \"%s\"\n", s,
			    e->caps[j].service, e->caps[j].cap);
			OPENSSL_cleanse(s, strlen(s));
			free(s);
			s = next;
		}
	}
	return s;
}

int
keyring_write(const char *path, const struct keyring *k, char **cause)
{
	char *text = keyring_format(k);
	size_t len = strlen(text), done = 0;
	ssize_t w;
	int fd, saved;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1) {
		if (errno == EEXIST)
			xasprintf(cause,
			    "keyring %s exists already; it is "
			    "not replaced (remove it, or name another file)",
			    path);
		else
			xasprintf(cause, "keyring %s: %s", path,
			    strerror(errno));
		goto fail;
	}
	/* The umask can only take bits away; say it anyway. */
	if (fchmod(fd, 0600) == -1)
		goto io;
	while (done < len) {
		w = write(fd, text + done, len - done);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			goto io;
		done += (size_t)w;
	}
	if (fsync(fd) == -1)
		goto io;
	if (close(fd) == -1) {
		fd = -1;
		goto io;
	}
	OPENSSL_cleanse(text, len);
	free(text);
	return 0;
io:
	saved = errno;
	if (fd != -1)
		close(fd);
	unlink(path);
	xasprintf(cause, "keyring %s: %s", path, strerror(saved));
fail:
	OPENSSL_cleanse(text, len);
	free(text);
	return -1;
}
