/* conf.c: values of the option table, their text forms and the ini loader. */
#include "config.h"

#include <sys/stat.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/mapmon.h"
#include "common/suggest.h"
#include "conf/conf.h"

struct conf_value {
	int64_t i;	/* INT, SIZE, DURATION, BOOL, ENUM */
	double d;	/* FLOAT */
	char *s;	/* STRING, ADDRESS */
	int level[2];	/* LOGLEVEL: file, gather */
	int line;	/* line of the file that set it; 0: not from a file */
};

struct conf {
	char *path;
	struct conf_value v[CONF_NKEYS];
};

/* A parse error in two parts, so that each caller can name the key its way. */
struct conf_err {
	char *what;   /* "bad duration 'x'" */
	char *detail; /* "give a unit, as in 20ms or 2s" */
};

static const struct {
	const char *suffix;
	int64_t mult;
} conf_size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1LL << 10 }, { "kb", 1LL << 10 }, { "kib", 1LL << 10 },
	{ "m", 1LL << 20 }, { "mb", 1LL << 20 }, { "mib", 1LL << 20 },
	{ "g", 1LL << 30 }, { "gb", 1LL << 30 }, { "gib", 1LL << 30 },
	{ "t", 1LL << 40 }, { "tb", 1LL << 40 }, { "tib", 1LL << 40 },
};

/* Largest first: conf_format_duration() takes the first that divides. */
static const struct {
	const char *unit;
	int64_t ms;
} conf_duration_units[] = {
	{ "d", 86400000 }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 },
	{ "ms", 1 },
};

static const char *const conf_bool_true[] = { "true", "yes", "on", "1" };
static const char *const conf_bool_false[] = { "false", "no", "off", "0" };

static printflike(3, 4) void
conf_err_set(struct conf_err *e, const char *detail, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xvasprintf(&e->what, fmt, ap);
	va_end(ap);
	e->detail = xstrdup(detail);
}

static void
conf_err_clear(struct conf_err *e)
{
	free(e->what);
	free(e->detail);
	e->what = e->detail = NULL;
}

static int
conf_is_blank(int ch)
{
	return ch == ' ' || ch == '\t';
}

/* Copies s without the blanks around it. */
static char *
conf_trim(const char *s, size_t len)
{
	while (len > 0 && conf_is_blank((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && conf_is_blank((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

/*
 * Strips the blanks around a value and one pair of double quotes; inside the
 * quotes everything is kept as written.
 */
static char *
conf_unquote(const char *value, struct conf_err *e)
{
	char *t, *out;
	size_t len;

	t = conf_trim(value, strlen(value));
	len = strlen(t);
	if (t[0] != '"')
		return t;
	if (len < 2 || t[len - 1] != '"') {
		conf_err_set(e, "close it with a '\"' at the end of the value",
		    "unterminated quote in '%s'", t);
		free(t);
		return NULL;
	}
	out = xstrndup(t + 1, len - 2);
	free(t);
	return out;
}

/* Parses an unsigned decimal number, all of it digits; -1 on overflow. */
static int
conf_digits(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int
conf_parse_int_err(const char *s, int64_t *out, struct conf_err *e)
{
	const char *p = s;
	int neg = 0;
	int64_t v;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (conf_digits(p, strlen(p), &v) != 0) {
		if (*p != '\0' && strspn(p, "0123456789") == strlen(p))
			conf_err_set(e, "too large", "bad number '%s'", s);
		else
			conf_err_set(e, "expected a whole number",
			    "bad number '%s'", s);
		return -1;
	}
	*out = neg ? -v : v;
	return 0;
}

static int
conf_parse_size_err(const char *s, int64_t *out, struct conf_err *e)
{
	const char *hint =
	    "use a number of bytes with an optional K, M, G or T suffix, "
	    "as in 64M";
	size_t n = strspn(s, "0123456789"), i;
	int64_t v;

	if (n == 0) {
		conf_err_set(e, hint, "bad size '%s'", s);
		return -1;
	}
	if (s[n] == '.' || s[n] == ',') {
		conf_err_set(e, "use whole numbers, as in 1536M",
		    "bad size '%s'", s);
		return -1;
	}
	if (conf_digits(s, n, &v) != 0) {
		conf_err_set(e, "too large", "bad size '%s'", s);
		return -1;
	}
	for (i = 0; i < nitems(conf_size_units); i++) {
		if (strcasecmp(s + n, conf_size_units[i].suffix) != 0)
			continue;
		if (v > INT64_MAX / conf_size_units[i].mult) {
			conf_err_set(e, "too large", "bad size '%s'", s);
			return -1;
		}
		*out = v * conf_size_units[i].mult;
		return 0;
	}
	conf_err_set(e, hint, "bad size '%s'", s);
	return -1;
}

static int
conf_parse_duration_err(const char *s, int64_t *out, struct conf_err *e)
{
	size_t n = strspn(s, "0123456789"), i;
	int64_t v;

	if (n == 0) {
		conf_err_set(e, "use a number and a unit, as in 20ms or 2s",
		    "bad duration '%s'", s);
		return -1;
	}
	if (s[n] == '.' || s[n] == ',') {
		conf_err_set(e, "use whole numbers, as in 1500ms",
		    "bad duration '%s'", s);
		return -1;
	}
	if (conf_digits(s, n, &v) != 0) {
		conf_err_set(e, "too large", "bad duration '%s'", s);
		return -1;
	}
	if (s[n] == '\0') {
		if (v == 0) {
			*out = 0;
			return 0;
		}
		conf_err_set(e, "give a unit, as in 20ms or 2s",
		    "bad duration '%s'", s);
		return -1;
	}
	for (i = 0; i < nitems(conf_duration_units); i++) {
		if (strcmp(s + n, conf_duration_units[i].unit) != 0)
			continue;
		if (v > INT64_MAX / conf_duration_units[i].ms) {
			conf_err_set(e, "too large", "bad duration '%s'", s);
			return -1;
		}
		*out = v * conf_duration_units[i].ms;
		return 0;
	}
	conf_err_set(e, "units are ms, s, m, h and d, as in 20ms or 2s",
	    "bad duration '%s'", s);
	return -1;
}

/*
 * A decimal number as the file writes it: an optional '-', digits with at
 * most one '.', at least one digit, and an optional exponent.  strtod()
 * alone would take blanks, "nan", "inf" and hex as well.
 */
static int
conf_parse_float_err(const char *s, double *out, struct conf_err *e)
{
	const char *p = s;
	size_t digits = 0;
	char *end;
	double d;

	if (*p == '-')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (digits > 0 && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char)*p))
			digits = 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (digits == 0 || *p != '\0') {
		conf_err_set(e, "give a decimal number, as in 0.75",
		    "bad number '%s'", s);
		return -1;
	}
	errno = 0;
	d = strtod(s, &end);
	if (*end != '\0' || !isfinite(d) || (errno == ERANGE && d != 0)) {
		conf_err_set(e, "too large", "bad number '%s'", s);
		return -1;
	}
	*out = d;
	return 0;
}

static int
conf_parse_bool_err(const char *s, int64_t *out, struct conf_err *e)
{
	size_t i;

	for (i = 0; i < nitems(conf_bool_true); i++) {
		if (strcasecmp(s, conf_bool_true[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(s, conf_bool_false[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	conf_err_set(e, "expected true, false, yes, no, on, off, 1 or 0",
	    "bad bool '%s'", s);
	return -1;
}

static int
conf_parse_enum_err(const char *s, const char *const *choices, int64_t *out,
    struct conf_err *e)
{
	char *list = NULL, *tmp, *detail;
	struct suggest sg;
	size_t i, n;

	suggest_init(&sg, s);
	for (n = 0; choices[n] != NULL; n++) {
		if (strcasecmp(s, choices[n]) == 0) {
			*out = (int64_t)n;
			return 0;
		}
		suggest_offer(&sg, choices[n]);
	}
	for (i = 0; i < n; i++) {
		if (i == 0)
			xasprintf(&tmp, "%s", choices[i]);
		else
			xasprintf(&tmp, "%s%s%s", list,
			    i == n - 1 ? " or " : ", ", choices[i]);
		free(list);
		list = tmp;
	}
	if (sg.best != NULL)
		xasprintf(&detail, "expected %s; did you mean '%s'?", list,
		    sg.best);
	else
		xasprintf(&detail, "expected %s", list);
	conf_err_set(e, detail, "bad value '%s'", s);
	free(detail);
	free(list);
	return -1;
}

static int
conf_parse_loglevel_err(const char *s, int level[2], struct conf_err *e)
{
	const char *slash = strchr(s, '/');
	int64_t l, g;

	if (slash == NULL) {
		if (conf_digits(s, strlen(s), &l) != 0)
			goto bad;
		g = l;
	} else if (conf_digits(s, (size_t)(slash - s), &l) != 0 ||
	    conf_digits(slash + 1, strlen(slash + 1), &g) != 0)
		goto bad;
	if (l > CONF_LOGLEVEL_MAX || g > CONF_LOGLEVEL_MAX) {
		conf_err_set(e, "levels go from 0 to 20", "bad log level '%s'",
		    s);
		return -1;
	}
	level[0] = (int)l;
	level[1] = (int)g;
	return 0;
bad:
	conf_err_set(e, "expected L/G or L, as in 1/5, with levels 0 to 20",
	    "bad log level '%s'", s);
	return -1;
}

/* A host name as RFC 1123 allows: dot-separated labels of [A-Za-z0-9-]. */
static int
conf_hostname_ok(const char *h)
{
	size_t len = strlen(h), label = 0, i;

	if (len == 0 || len > 253)
		return 0;
	for (i = 0; i < len; i++) {
		if (h[i] == '.') {
			if (label == 0 || h[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)h[i]) && h[i] != '-')
			return 0;
		if (h[i] == '-' && label == 0)
			return 0;
		if (++label > 63)
			return 0;
	}
	return h[len - 1] != '-';
}

/* Parses HOST:PORT; the detail of an error is the whole message. */
static int
conf_parse_address_err(const char *s, char *host, size_t hostlen,
    uint16_t *port, struct conf_err *e)
{
	const char *colon, *hs, *he;
	char h[256];
	unsigned char addr[16];
	int64_t p;

	if (s[0] == '[') {
		if ((he = strchr(s, ']')) == NULL) {
			conf_err_set(e, "missing ']' after the IPv6 address, "
			    "as in [::1]:6788", "bad address '%s'", s);
			return -1;
		}
		hs = s + 1;
		colon = he + 1;
		if (*colon != ':') {
			conf_err_set(e,
			    "expected [IPV6]:PORT, as in [::1]:6788",
			    "bad address '%s'", s);
			return -1;
		}
	} else {
		if ((colon = strrchr(s, ':')) == NULL) {
			conf_err_set(e, "expected HOST:PORT, as in "
			    "127.0.0.1:6788", "bad address '%s'", s);
			return -1;
		}
		hs = s;
		he = colon;
		if (memchr(hs, ':', (size_t)(he - hs)) != NULL) {
			conf_err_set(e, "put an IPv6 address in brackets, "
			    "as in [::1]:6788", "bad address '%s'", s);
			return -1;
		}
	}
	if (he == hs) {
		conf_err_set(e, "missing host, as in 127.0.0.1:6788 (0.0.0.0 "
		    "for every interface)", "bad address '%s'", s);
		return -1;
	}
	if ((size_t)(he - hs) >= sizeof h || (size_t)(he - hs) >= hostlen) {
		conf_err_set(e, "host name too long", "bad address '%s'", s);
		return -1;
	}
	memcpy(h, hs, (size_t)(he - hs));
	h[he - hs] = '\0';
	if (conf_digits(colon + 1, strlen(colon + 1), &p) != 0 || p > 65535) {
		conf_err_set(e, "the port is a number from 0 to 65535",
		    "bad address '%s'", s);
		return -1;
	}
	if (s[0] == '[') {
		if (inet_pton(AF_INET6, h, addr) != 1) {
			conf_err_set(e, "not an IPv6 address inside the "
			    "brackets", "bad address '%s'", s);
			return -1;
		}
	} else if (strspn(h, "0123456789.") == strlen(h)) {
		if (inet_pton(AF_INET, h, addr) != 1) {
			conf_err_set(e, "not an IPv4 address",
			    "bad address '%s'", s);
			return -1;
		}
	} else if (!conf_hostname_ok(h)) {
		conf_err_set(e, "not a valid host name",
		    "bad address '%s'", s);
		return -1;
	}
	snprintf(host, hostlen, "%s", h);
	*port = (uint16_t)p;
	return 0;
}

char *
conf_format_size(int64_t bytes)
{
	static const char units[] = "TGMK";
	char *s;
	int i;

	if (bytes != 0) {
		for (i = 0; i < 4; i++) {
			int64_t mult = (int64_t)1 << (10 * (4 - i));

			if (bytes % mult == 0) {
				xasprintf(&s, "%lld%c",
				    (long long)(bytes / mult), units[i]);
				return s;
			}
		}
	}
	xasprintf(&s, "%lld", (long long)bytes);
	return s;
}

char *
conf_format_duration(int64_t ms)
{
	char *s;
	size_t i;

	if (ms == 0)
		return xstrdup("0");
	for (i = 0; i < nitems(conf_duration_units); i++) {
		if (ms % conf_duration_units[i].ms == 0)
			break;
	}
	xasprintf(&s, "%lld%s", (long long)(ms / conf_duration_units[i].ms),
	    conf_duration_units[i].unit);
	return s;
}

char *
conf_format_float(double d)
{
	char *s;
	int prec;

	/* The fewest digits that read back the same: 0.75, not 0.7500..01. */
	for (prec = 1; prec < 17; prec++) {
		xasprintf(&s, "%.*g", prec, d);
		if (strtod(s, NULL) == d)
			return s;
		free(s);
	}
	xasprintf(&s, "%.17g", d);
	return s;
}

/* A number of the key's type as the file writes it (for bounds). */
static char *
conf_format_number(enum conf_type type, int64_t v)
{
	char *s;

	switch (type) {
	case CONF_SIZE:
		return conf_format_size(v);
	case CONF_DURATION:
		return conf_format_duration(v);
	default:
		xasprintf(&s, "%lld", (long long)v);
		return s;
	}
}

static int
conf_empty_allowed(const struct conf_option *o)
{
	return (o->type == CONF_STRING || o->type == CONF_ADDRESS) &&
	    o->def[0] == '\0';
}

/*
 * Parses the text of one value (quotes already stripped) for key into v,
 * whose string, if any, is newly allocated.  On error fills e.
 */
static int
conf_value_parse(enum conf_key key, const char *text, struct conf_value *v,
    struct conf_err *e)
{
	const struct conf_option *o = &conf_options[key];
	char host[256], *lo, *hi, *detail;
	uint16_t port;
	const char *p;
	int r = -1;

	memset(v, 0, sizeof *v);
	if (*text == '\0') {
		if (conf_empty_allowed(o)) {
			v->s = xstrdup("");
			return 0;
		}
		if (o->def[0] != '\0')
			xasprintf(&detail, "give a value, or remove the line "
			    "for the default %s", o->def);
		else
			detail = xstrdup("give a value");
		conf_err_set(e, detail, "empty value");
		free(detail);
		return -1;
	}
	switch (o->type) {
	case CONF_INT:
		r = conf_parse_int_err(text, &v->i, e);
		break;
	case CONF_SIZE:
		r = conf_parse_size_err(text, &v->i, e);
		break;
	case CONF_DURATION:
		r = conf_parse_duration_err(text, &v->i, e);
		break;
	case CONF_BOOL:
		return conf_parse_bool_err(text, &v->i, e);
	case CONF_ENUM:
		return conf_parse_enum_err(text, o->choices, &v->i, e);
	case CONF_LOGLEVEL:
		return conf_parse_loglevel_err(text, v->level, e);
	case CONF_FLOAT:
		if (conf_parse_float_err(text, &v->d, e) != 0)
			return -1;
		if (v->d < o->fmin || v->d > o->fmax) {
			lo = conf_format_float(o->fmin);
			hi = conf_format_float(o->fmax);
			xasprintf(&detail, "must be between %s and %s", lo, hi);
			conf_err_set(e, detail, "value %s out of range", text);
			free(detail);
			free(lo);
			free(hi);
			return -1;
		}
		return 0;
	case CONF_ADDRESS:
		if (conf_parse_address_err(text, host, sizeof host, &port,
		    e) != 0)
			return -1;
		v->s = xstrdup(text);
		return 0;
	case CONF_STRING:
		for (p = text; *p != '\0'; p++) {
			if (iscntrl((unsigned char)*p) && *p != '\t') {
				conf_err_set(e, "control characters are not "
				    "allowed", "bad value '%s'", text);
				return -1;
			}
		}
		v->s = xstrdup(text);
		return 0;
	}
	if (r != 0)
		return -1;
	if (v->i < o->min || v->i > o->max) {
		lo = conf_format_number(o->type, o->min);
		hi = conf_format_number(o->type, o->max);
		xasprintf(&detail, "must be between %s and %s", lo, hi);
		conf_err_set(e, detail, "value %s out of range", text);
		free(detail);
		free(lo);
		free(hi);
		return -1;
	}
	return 0;
}

static void
conf_value_free(struct conf_value *v)
{
	free(v->s);
	v->s = NULL;
}

/* The table's defaults are code: one that does not parse is a bug. */
static void
conf_default(enum conf_key key, struct conf_value *v)
{
	struct conf_err e = { NULL, NULL };

	if (conf_value_parse(key, conf_options[key].def, v, &e) != 0) {
		fprintf(stderr, "fatal: default of %s.%s: %s: %s\n",
		    conf_options[key].section, conf_options[key].name, e.what,
		    e.detail);
		abort();
	}
}

struct conf *
conf_new(void)
{
	struct conf *c = xcalloc(1, sizeof *c);
	int k;

	for (k = 0; k < CONF_NKEYS; k++)
		conf_default(k, &c->v[k]);
	return c;
}

void
conf_free(struct conf *c)
{
	int k;

	if (c == NULL)
		return;
	for (k = 0; k < CONF_NKEYS; k++)
		conf_value_free(&c->v[k]);
	free(c->path);
	free(c);
}

struct conf *
conf_copy(const struct conf *c)
{
	struct conf *n = xcalloc(1, sizeof *n);
	int k;

	n->path = c->path != NULL ? xstrdup(c->path) : NULL;
	for (k = 0; k < CONF_NKEYS; k++) {
		n->v[k] = c->v[k];
		if (c->v[k].s != NULL)
			n->v[k].s = xstrdup(c->v[k].s);
	}
	return n;
}

void
conf_errors_free(char **errors, size_t n)
{
	size_t i;

	if (errors == NULL)
		return;
	for (i = 0; i < n; i++)
		free(errors[i]);
	free(errors);
}

const char *
conf_path(const struct conf *c)
{
	return c->path;
}

int
conf_line(const struct conf *c, enum conf_key key)
{
	if ((unsigned)key >= CONF_NKEYS)
		return 0;
	return c->v[key].line;
}

int64_t
conf_int(const struct conf *c, enum conf_key key)
{
	if ((unsigned)key >= CONF_NKEYS)
		return 0;
	switch (conf_options[key].type) {
	case CONF_INT:
	case CONF_SIZE:
	case CONF_DURATION:
	case CONF_BOOL:
	case CONF_ENUM:
		return c->v[key].i;
	default:
		return 0;
	}
}

double
conf_float(const struct conf *c, enum conf_key key)
{
	if ((unsigned)key >= CONF_NKEYS || conf_options[key].type != CONF_FLOAT)
		return 0;
	return c->v[key].d;
}

const char *
conf_str(const struct conf *c, enum conf_key key)
{
	if ((unsigned)key >= CONF_NKEYS)
		return NULL;
	switch (conf_options[key].type) {
	case CONF_STRING:
	case CONF_ADDRESS:
		return c->v[key].s;
	case CONF_ENUM:
		return conf_options[key].choices[c->v[key].i];
	default:
		return NULL;
	}
}

void
conf_loglevel(const struct conf *c, enum conf_key key, int *file_level,
    int *gather_level)
{
	if ((unsigned)key >= CONF_NKEYS ||
	    conf_options[key].type != CONF_LOGLEVEL) {
		*file_level = *gather_level = 0;
		return;
	}
	*file_level = c->v[key].level[0];
	*gather_level = c->v[key].level[1];
}

/* The key named name in section, or -1. */
static int
conf_find_in(const char *section, size_t seclen, const char *name)
{
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		if (strlen(conf_options[k].section) == seclen &&
		    strncmp(conf_options[k].section, section, seclen) == 0 &&
		    strcmp(conf_options[k].name, name) == 0)
			return k;
	}
	return -1;
}

int
conf_find(const char *fullname)
{
	const char *dot = strrchr(fullname, '.');

	if (dot == NULL)
		return -1;
	return conf_find_in(fullname, (size_t)(dot - fullname), dot + 1);
}

const char *
conf_fullname(enum conf_key key, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if ((unsigned)key >= CONF_NKEYS) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, len, "%s.%s", conf_options[key].section,
	    conf_options[key].name);
	return buf;
}

int
conf_set(struct conf *c, enum conf_key key, const char *value, char **cause)
{
	struct conf_err e = { NULL, NULL };
	struct conf_value v;
	char *text;

	if ((unsigned)key >= CONF_NKEYS) {
		xasprintf(cause, "no such key");
		return -1;
	}
	if ((text = conf_unquote(value, &e)) == NULL ||
	    conf_value_parse(key, text, &v, &e) != 0) {
		xasprintf(cause, "%s.%s: %s: %s", conf_options[key].section,
		    conf_options[key].name, e.what, e.detail);
		conf_err_clear(&e);
		free(text);
		return -1;
	}
	free(text);
	conf_value_free(&c->v[key]);
	c->v[key] = v;
	return 0;
}

/* Whether a string must be quoted to read back the same from a file. */
static int
conf_needs_quotes(const char *s)
{
	size_t len = strlen(s), i;

	if (len == 0)
		return 0;
	if (conf_is_blank((unsigned char)s[0]) ||
	    conf_is_blank((unsigned char)s[len - 1]) || s[0] == '"' ||
	    s[0] == ';' || s[0] == '#')
		return 1;
	for (i = 1; i < len; i++) {
		if ((s[i] == ';' || s[i] == '#') &&
		    conf_is_blank((unsigned char)s[i - 1]))
			return 1;
	}
	return 0;
}

char *
conf_format(const struct conf *c, enum conf_key key)
{
	const struct conf_option *o;
	const struct conf_value *v;
	char *s;

	if ((unsigned)key >= CONF_NKEYS)
		return xstrdup("");
	o = &conf_options[key];
	v = &c->v[key];
	switch (o->type) {
	case CONF_INT:
		xasprintf(&s, "%lld", (long long)v->i);
		return s;
	case CONF_SIZE:
		return conf_format_size(v->i);
	case CONF_DURATION:
		return conf_format_duration(v->i);
	case CONF_BOOL:
		return xstrdup(v->i ? "true" : "false");
	case CONF_ENUM:
		return xstrdup(o->choices[v->i]);
	case CONF_LOGLEVEL:
		xasprintf(&s, "%d/%d", v->level[0], v->level[1]);
		return s;
	case CONF_FLOAT:
		return conf_format_float(v->d);
	case CONF_STRING:
	case CONF_ADDRESS:
		if (conf_needs_quotes(v->s)) {
			xasprintf(&s, "\"%s\"", v->s);
			return s;
		}
		return xstrdup(v->s);
	}
	return xstrdup("");
}

int
conf_equal(const struct conf *a, const struct conf *b, enum conf_key key)
{
	const struct conf_value *va, *vb;

	if ((unsigned)key >= CONF_NKEYS)
		return 0;
	va = &a->v[key];
	vb = &b->v[key];
	switch (conf_options[key].type) {
	case CONF_STRING:
	case CONF_ADDRESS:
		return strcmp(va->s, vb->s) == 0;
	case CONF_LOGLEVEL:
		return va->level[0] == vb->level[0] &&
		    va->level[1] == vb->level[1];
	case CONF_FLOAT:
		return va->d == vb->d;
	default:
		return va->i == vb->i;
	}
}

int
conf_parse_address(const char *s, char *host, size_t hostlen, uint16_t *port,
    char **cause)
{
	struct conf_err e = { NULL, NULL };

	if (conf_parse_address_err(s, host, hostlen, port, &e) != 0) {
		xasprintf(cause, "%s: %s", e.what, e.detail);
		conf_err_clear(&e);
		return -1;
	}
	return 0;
}

int
conf_bind_loopback(const char *s)
{
	struct in_addr a4;
	struct in6_addr a6;
	char host[256], *cause = NULL;
	uint16_t port;

	if (conf_parse_address(s, host, sizeof host, &port, &cause) == -1) {
		free(cause);
		return 0;
	}
	if (strcasecmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		    (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return 0;
}

int
conf_parse_size(const char *s, int64_t *out, char **cause)
{
	struct conf_err e = { NULL, NULL };

	if (conf_parse_size_err(s, out, &e) != 0) {
		xasprintf(cause, "%s: %s", e.what, e.detail);
		conf_err_clear(&e);
		return -1;
	}
	return 0;
}

int
conf_parse_float(const char *s, double *out, char **cause)
{
	struct conf_err e = { NULL, NULL };

	if (conf_parse_float_err(s, out, &e) != 0) {
		xasprintf(cause, "%s: %s", e.what, e.detail);
		conf_err_clear(&e);
		return -1;
	}
	return 0;
}

int
conf_parse_duration(const char *s, int64_t *ms, char **cause)
{
	struct conf_err e = { NULL, NULL };

	if (conf_parse_duration_err(s, ms, &e) != 0) {
		xasprintf(cause, "%s: %s", e.what, e.detail);
		conf_err_clear(&e);
		return -1;
	}
	return 0;
}

/*
 * The loader reads one physical line at a time and counts them, so every
 * error names its line: a line too long or holding NUL bytes, a bad or
 * unknown section header, a line that is neither "[section]" nor
 * "key = value", an unknown or duplicate key, a bad value.  An indented line
 * is a line like any other (no continuation lines), ':' does not separate a
 * key from its value, and a comment starts with ';' or '#' at the start of a
 * line or after a blank (quotes protect them in a value).
 */
struct conf_load {
	struct conf *c;
	const char *path;
	FILE *f;
	int line;
	int in_section;	/* a section header was seen */
	int section_ok;	/* the current section is known */
	const char *section;	/* its name (of conf_sections) when known */
	char **errors;
	size_t nerrors;
	int stopped;	/* too many errors: read no further */
	char buf[CONF_LINE_MAX + 2];
};

static printflike(3, 4) void
conf_load_error(struct conf_load *l, int line, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (l->stopped)
		return;
	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	l->errors = xreallocarray(l->errors, l->nerrors + 2,
	    sizeof *l->errors);
	if (line > 0)
		xasprintf(&l->errors[l->nerrors++], "%s:%d: %s", l->path, line,
		    msg);
	else
		xasprintf(&l->errors[l->nerrors++], "%s: %s", l->path, msg);
	free(msg);
	if (l->nerrors == CONF_ERRORS_MAX) {
		xasprintf(&l->errors[l->nerrors++],
		    "%s: too many errors; stopped after %d", l->path,
		    CONF_ERRORS_MAX);
		l->stopped = 1;
	}
}

/* A piece of a line, shortened for a message. */
static char *
conf_excerpt(const char *s)
{
	char *out;

	if (strlen(s) <= 40)
		return xstrdup(s);
	xasprintf(&out, "%.37s...", s);
	return out;
}

/*
 * Reads the next physical line into l->buf.  Returns its length, -1 at the
 * end of the file, or -2 for a line to skip (too long, NUL bytes), which is
 * already reported.
 */
static int
conf_load_getline(struct conf_load *l)
{
	size_t len = 0;
	int ch, nul = 0, any = 0;

	while ((ch = getc(l->f)) != EOF) {
		any = 1;
		if (ch == '\n')
			break;
		if (ch == '\0')
			nul = 1;
		if (len < sizeof l->buf - 1)
			l->buf[len] = (char)ch;
		if (len < SIZE_MAX)
			len++;
	}
	if (!any)
		return -1;
	l->line++;
	/* Count a CRLF ending as an ending, not as part of the line. */
	if (len > 0 && len <= sizeof l->buf - 1 && l->buf[len - 1] == '\r')
		len--;
	if (len > CONF_LINE_MAX) {
		conf_load_error(l, l->line, "line too long (%zu characters; "
		    "at most %d)", len, CONF_LINE_MAX);
		return -2;
	}
	l->buf[len] = '\0';
	if (nul) {
		conf_load_error(l, l->line, "NUL byte in line (is this a "
		    "text file?)");
		return -2;
	}
	return (int)len;
}

/* Finds the nearest known section to an unknown one; NULL if none is close. */
static const char *
conf_nearest_section(const char *name)
{
	struct suggest sg;
	const char *dot;
	size_t i;

	suggest_init(&sg, name);
	for (i = 0; conf_sections[i] != NULL; i++) {
		/* [lmdb] for [store.lmdb]: the last part alone. */
		dot = strrchr(conf_sections[i], '.');
		if (dot != NULL && strcasecmp(dot + 1, name) == 0)
			return conf_sections[i];
		suggest_offer(&sg, conf_sections[i]);
	}
	return sg.best;
}

/* A "[section]" line: checks it and makes it the current section. */
static void
conf_load_section(struct conf_load *l, char *s)
{
	char *end, *name, *rest, *ex;
	const char *near;
	size_t i;

	if ((end = strchr(s, ']')) == NULL) {
		ex = conf_excerpt(s);
		conf_load_error(l, l->line, "missing ']' in section header "
		    "'%s'", ex);
		free(ex);
		l->section_ok = 0;
		l->in_section = 1;
		return;
	}
	rest = end + 1;
	rest += strspn(rest, " \t");
	if (*rest != '\0' && *rest != ';' && *rest != '#') {
		ex = conf_excerpt(rest);
		conf_load_error(l, l->line, "unexpected text '%s' after "
		    "section header", ex);
		free(ex);
	}
	name = conf_trim(s + 1, (size_t)(end - s - 1));
	l->in_section = 1;
	l->section_ok = 0;
	if (*name == '\0') {
		conf_load_error(l, l->line, "empty section name");
		free(name);
		return;
	}
	for (i = 0; conf_sections[i] != NULL; i++) {
		if (strcmp(name, conf_sections[i]) == 0)
			break;
	}
	if (conf_sections[i] == NULL) {
		ex = conf_excerpt(name);
		if ((near = conf_nearest_section(name)) != NULL)
			conf_load_error(l, l->line, "unknown section [%s]; did "
			    "you mean [%s]?", ex, near);
		else
			conf_load_error(l, l->line, "unknown section [%s]", ex);
		free(ex);
		free(name);
		return;
	}
	l->section_ok = 1;
	l->section = conf_sections[i];
	free(name);
}

/*
 * Cuts a comment off a value: ';' or '#' at its start or after a blank.  A
 * value in double quotes is skipped first, up to the quote after which only
 * blanks or a comment remain, so quotes protect ';' and '#'.
 */
static void
conf_cut_comment(char *v)
{
	char *p = v + strspn(v, " \t"), *q, *r;

	if (*p == '"') {
		for (q = strchr(p + 1, '"'); q != NULL;
		    q = strchr(q + 1, '"')) {
			r = q + 1 + strspn(q + 1, " \t");
			if (*r == '\0' || *r == ';' || *r == '#') {
				*r = '\0';
				return;
			}
		}
		return; /* unterminated: conf_unquote() says so */
	}
	for (; *p != '\0'; p++) {
		if ((*p == ';' || *p == '#') &&
		    (p == v || conf_is_blank((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

/* Sections holding a key of this name, as "[mon]" or "[mon] or [metrics]". */
static char *
conf_sections_of(const char *name)
{
	char *list = NULL, *tmp;
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		if (strcmp(conf_options[k].name, name) != 0)
			continue;
		if (list == NULL)
			xasprintf(&tmp, "[%s]", conf_options[k].section);
		else
			xasprintf(&tmp, "%s or [%s]", list,
			    conf_options[k].section);
		free(list);
		list = tmp;
	}
	return list;
}

static void
conf_load_unknown(struct conf_load *l, const char *section, const char *name)
{
	struct suggest sd, od;
	int k, same = -1, other = -1;
	char *ex = conf_excerpt(name);

	/* The nearest key of this section, and of the others. */
	suggest_init(&sd, name);
	suggest_init(&od, name);
	for (k = 0; k < CONF_NKEYS; k++) {
		if (strcmp(conf_options[k].section, section) == 0) {
			if (suggest_offer(&sd, conf_options[k].name))
				same = k;
		} else if (suggest_offer(&od, conf_options[k].name))
			other = k;
	}
	if (other != -1 && od.distance < sd.distance)
		conf_load_error(l, l->line, "unknown key '%s' in [%s]; did you "
		    "mean '%s' in [%s]?", ex, section, conf_options[other].name,
		    conf_options[other].section);
	else if (same != -1)
		conf_load_error(l, l->line, "unknown key '%s' in [%s]; did you "
		    "mean '%s'?", ex, section, conf_options[same].name);
	else
		conf_load_error(l, l->line, "unknown key '%s' in [%s]", ex,
		    section);
	free(ex);
}

/* One "key = value" pair, its value without the blanks around it. */
static void
conf_load_value(struct conf_load *l, const char *name, const char *value)
{
	struct conf_err e = { NULL, NULL };
	struct conf_value v;
	char *text, *where, *ex;
	int key;

	if (!l->in_section) {
		ex = conf_excerpt(name);
		if ((where = conf_sections_of(name)) != NULL)
			conf_load_error(l, l->line, "key '%s' before any "
			    "section; put it under %s", ex, where);
		else
			conf_load_error(l, l->line, "key '%s' before any "
			    "section", ex);
		free(where);
		free(ex);
		return;
	}
	/* Keys below a bad header are not checked. */
	if (!l->section_ok)
		return;
	if ((key = conf_find_in(l->section, strlen(l->section), name)) == -1) {
		conf_load_unknown(l, l->section, name);
		return;
	}
	if (l->c->v[key].line != 0) {
		conf_load_error(l, l->line, "duplicate key '%s' in [%s] (first "
		    "set at line %d)", name, l->section, l->c->v[key].line);
		return;
	}
	if ((text = conf_unquote(value, &e)) == NULL ||
	    conf_value_parse(key, text, &v, &e) != 0) {
		conf_load_error(l, l->line, "%s for %s: %s", e.what, name,
		    e.detail);
		conf_err_clear(&e);
		free(text);
		/* A later duplicate is still a duplicate of this line. */
		l->c->v[key].line = l->line;
		return;
	}
	free(text);
	conf_value_free(&l->c->v[key]);
	l->c->v[key] = v;
	l->c->v[key].line = l->line;
}

/* A "key = value" line: checks the key, cuts the comment, sets the key. */
static void
conf_load_pair(struct conf_load *l, char *s)
{
	char *eq, *key, *ex, *value, *end;

	if ((eq = strchr(s, '=')) == NULL) {
		ex = conf_excerpt(s);
		conf_load_error(l, l->line, "expected 'key = value' or "
		    "'[section]', not '%s'", ex);
		free(ex);
		return;
	}
	key = conf_trim(s, (size_t)(eq - s));
	if (*key == '\0') {
		conf_load_error(l, l->line, "missing key before '='");
		free(key);
		return;
	}
	if (strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_.-") != strlen(key)) {
		ex = conf_excerpt(key);
		conf_load_error(l, l->line, "bad key name '%s': keys are "
		    "letters, digits and '_'", ex);
		free(ex);
		free(key);
		return;
	}
	conf_cut_comment(eq + 1);
	/* White space of any kind around the value is not part of it. */
	for (value = eq + 1; isspace((unsigned char)*value); value++)
		;
	for (end = value + strlen(value); end > value &&
	    isspace((unsigned char)end[-1]); end--)
		;
	*end = '\0';
	conf_load_value(l, key, value);
	free(key);
}

/* Reads the file to its end, or until too many errors. */
static void
conf_load_parse(struct conf_load *l)
{
	char *s;
	int len;

	while (!l->stopped) {
		if ((len = conf_load_getline(l)) == -1)
			return;
		if (len == -2)
			continue;
		s = l->buf;
		/* A UTF-8 byte order mark is not part of the first line. */
		if (l->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
			s += 3;
		s += strspn(s, " \t");
		if (*s == '\0' || *s == ';' || *s == '#')
			continue;
		if (*s == '[')
			conf_load_section(l, s);
		else
			conf_load_pair(l, s);
	}
}

int
conf_check(const struct conf *c, char **cause)
{
	int64_t frame = conf_int(c, CONF_MON_MAX_FRAME);
	int64_t budget = conf_int(c, CONF_MON_MAX_PARTIAL_INPUT);
	char *fs, *bs;

	if (budget >= frame + CONF_FRAME_HEADER)
		return 0;
	fs = conf_format(c, CONF_MON_MAX_FRAME);
	bs = conf_format(c, CONF_MON_MAX_PARTIAL_INPUT);
	xasprintf(cause, "max_partial_input %s is less than max_frame %s plus "
	    "its %d-byte header: a frame of max_frame could never be read "
	    "whole", bs, fs, CONF_FRAME_HEADER);
	free(fs);
	free(bs);
	return -1;
}

struct conf *
conf_load(const char *path, char ***errors, size_t *nerrors)
{
	struct conf_load l;
	struct stat st;
	char *cause;
	int fd, line;

	memset(&l, 0, sizeof l);
	l.path = path;
	*errors = NULL;
	*nerrors = 0;

	/* Non-blocking, so that a FIFO given as the file cannot hang us. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		conf_load_error(&l, 0, "cannot open: %s", strerror(errno));
		goto fail;
	}
	if (fstat(fd, &st) == -1) {
		conf_load_error(&l, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		conf_load_error(&l, 0, "is a directory, not a config file");
		close(fd);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		conf_load_error(&l, 0, "not a regular file");
		close(fd);
		goto fail;
	}
	if ((l.f = fdopen(fd, "r")) == NULL) {
		conf_load_error(&l, 0, "cannot open: %s", strerror(errno));
		close(fd);
		goto fail;
	}
	l.c = conf_new();
	l.c->path = xstrdup(path);
	conf_load_parse(&l);
	if (ferror(l.f))
		conf_load_error(&l, 0, "read error: %s", strerror(errno));
	fclose(l.f);
	if (l.nerrors == 0 && conf_check(l.c, &cause) == -1) {
		/* At the line of the budget, or of max_frame, if set. */
		line = conf_line(l.c, CONF_MON_MAX_PARTIAL_INPUT);
		if (line == 0)
			line = conf_line(l.c, CONF_MON_MAX_FRAME);
		conf_load_error(&l, line, "%s", cause);
		free(cause);
	}
	if (l.nerrors == 0)
		return l.c;
	conf_free(l.c);
fail:
	*errors = l.errors;
	*nerrors = l.nerrors;
	return NULL;
}
