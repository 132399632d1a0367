/*
 * log_gather.c: the ring of recent entries, the format parser, gathering
 * (the hot half of dout()) and the deferred formatter that turns gathered
 * entries into lines when they are dumped or read.
 *
 * dout()'s whole path, from log_dout() to the published slot, stays in this
 * one file so that the compiler can inline it: `mapmon-bench log` measures
 * it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log_priv.h"

/* The kinds of argument a conversion takes, as va_arg must fetch them. */
enum log_kind {
	LOG_K_PCT,	/* %%: none */
	LOG_K_INT,	/* d i u o x X with hh, h or no modifier */
	LOG_K_CHAR,	/* %c: an int, shown escaped */
	LOG_K_LONG,
	LOG_K_LLONG,
	LOG_K_SIZE,
	LOG_K_INTMAX,
	LOG_K_PTRDIFF,
	LOG_K_DOUBLE,
	LOG_K_PTR,
	LOG_K_STR,
	LOG_K_ERRNO,	/* %m: none; errno at the call */
};

/* One conversion of a parsed format. */
struct log_conv {
	uint16_t start;		/* offset of its '%' in the format */
	uint16_t end;		/* offset just past its conversion character */
	uint8_t kind;		/* enum log_kind */
	uint8_t width_star;	/* width is `*` (an int argument) */
	uint8_t prec_star;	/* precision is `*` (an int argument) */
	uint8_t left;		/* the '-' flag */
	uint16_t flags_end;	/* flags are [start + 1, flags_end) */
	uint16_t lm_start;	/* length modifier and conversion: [lm_start, end) */
	int32_t width;		/* literal width, or -1 */
	int32_t prec;		/* literal precision, or -1 */
};

/* A call site's parsed format; made once, never freed. */
struct log_info {
	int eager;		/* format at gather time (unsupported format) */
	unsigned nconv;
	struct log_conv conv[];
};

/* One raw argument in a slot. */
union log_val {
	int i;
	long l;
	long long ll;
	size_t z;
	intmax_t j;
	ptrdiff_t t;
	double d;
	const void *p;
	struct {
		uint16_t off;	/* in the slot's data */
		uint16_t len;
		uint8_t flags;	/* LOG_STR_* */
	} s;
};
#define LOG_STR_NULL 0x1
#define LOG_STR_TRUNC 0x2

/*
 * A ring slot: 512 bytes.  seq is index + 1 of the entry it holds once
 * complete, 0 while empty, LOG_SEQ_BUSY while a writer fills it.
 */
#define LOG_SEQ_BUSY UINT64_MAX
#define LOG_SLOT_TEXT (LOG_MAXARGS * sizeof(union log_val) + LOG_SLOT_DATA)
#define LOG_SLOT_EAGER 0x1	/* u.text holds the message, unescaped */
#define LOG_SLOT_CUT 0x2	/* ... and it was cut to fit */

struct log_slot {
	uint64_t seq;
	uint64_t stamp;		/* raw: see log_clock_raw() */
	uint32_t tid;
	uint32_t pad2;
	const struct log_site *site;
	uint8_t subsys;		/* LOG_NOSUBSYS for "-" */
	uint8_t level;
	uint8_t flags;
	uint8_t nargs;
	uint16_t used;		/* bytes of data, or of text */
	uint16_t pad;
	union {
		struct {
			union log_val args[LOG_MAXARGS];
			char data[LOG_SLOT_DATA];
		} raw;
		char text[LOG_SLOT_TEXT];
	} u;
};
_Static_assert(sizeof(struct log_slot) == 512, "a slot is 512 bytes");
_Static_assert(sizeof(union log_val) == 8, "a raw argument is 8 bytes");

/* The ring: entries [head - nslots, head) when head > nslots. */
static struct log_slot *log_ring;
static uint64_t log_nslots;
/*
 * The counters writers change, each on a cache line of its own, so that
 * they do not drag the read-mostly variables (the ring pointer, the levels)
 * from core to core with them.
 */
static struct {
	uint64_t n;
	char pad[56];
} log_head __attribute__((aligned(64)));	/* atomic: the next index */
static struct {
	uint64_t n;
	char pad[56];
} log_dropped __attribute__((aligned(64)));	/* atomic: slots found busy */

static __thread uint32_t log_tid_cache;

static const struct log_info log_info_eager = {.eager = 1, .nconv = 0};

/* The kernel thread id, cached per thread (a fork child resets it). */
static uint32_t
log_tid(void)
{
	if (unlikely(log_tid_cache == 0))
		log_tid_cache = (uint32_t)gettid();
	return log_tid_cache;
}

static void
log_atfork_child(void)
{
	log_tid_cache = 0;
}

static void
log_atfork_once(void)
{
	pthread_atfork(NULL, NULL, log_atfork_child);
}

/*
 * Stamps.  clock_gettime(CLOCK_REALTIME) costs about 23 ns on the reference
 * machine even through the vDSO: more than a third of the budget for a
 * gathered entry.  Where the kernel itself keeps time with the TSC
 * (clocksource "tsc": invariant and synchronised across CPUs, or the kernel
 * would not use it), a gathered entry keeps the raw TSC (about 10 ns to
 * read) and the dump converts it: the rate comes from the TSC and
 * CLOCK_MONOTONIC read at log_init and again at the dump, the offset to UTC
 * from CLOCK_REALTIME at the dump.  Elsewhere, or with the environment
 * variable MAPMON_LOG_CLOCK=realtime, entries keep CLOCK_REALTIME in ns.
 * Written lines always read CLOCK_REALTIME.
 */
static int log_use_tsc;
static uint64_t log_tsc0;
static int64_t log_mono0;

/* A TSC/time pair taken at a dump, for converting raw stamps. */
struct log_clock {
	uint64_t tsc1;
	int64_t mono1;
	int64_t rt_minus_mono;
};

static int64_t
log_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline uint64_t
log_clock_raw(void)
{
#if defined(__x86_64__)
	if (likely(log_use_tsc))
		return __builtin_ia32_rdtsc();
#endif
	return (uint64_t)log_clock_ns(CLOCK_REALTIME);
}

/* Reads the TSC and CLOCK_MONOTONIC as nearly together as it can. */
static void
log_clock_pair(uint64_t *tsc, int64_t *mono)
{
#if defined(__x86_64__)
	uint64_t t1, t2;

	t1 = __builtin_ia32_rdtsc();
	*mono = log_clock_ns(CLOCK_MONOTONIC);
	t2 = __builtin_ia32_rdtsc();
	*tsc = t1 + (t2 - t1) / 2;
#else
	*tsc = 0;
	*mono = log_clock_ns(CLOCK_MONOTONIC);
#endif
}

static void
log_clock_init(void)
{
	const char *env = getenv("MAPMON_LOG_CLOCK");
	char buf[16];
	ssize_t n;
	int fd;

	log_use_tsc = 0;
#if defined(__x86_64__)
	if (env != NULL && strcmp(env, "realtime") == 0)
		return;
	fd = open("/sys/devices/system/clocksource/clocksource0/"
	    "current_clocksource", O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (strcmp(buf, "tsc\n") != 0)
		return;
	log_clock_pair(&log_tsc0, &log_mono0);
	log_use_tsc = 1;
#else
	(void)env;
	(void)buf;
	(void)n;
	(void)fd;
#endif
}

/* Samples the clocks for converting raw stamps (async-signal-safe). */
static void
log_clock_sample(struct log_clock *c)
{
	int64_t rt, mono;

	if (!log_use_tsc)
		return;
	log_clock_pair(&c->tsc1, &c->mono1);
	mono = log_clock_ns(CLOCK_MONOTONIC);
	rt = log_clock_ns(CLOCK_REALTIME);
	c->rt_minus_mono = rt - mono;
}

/* A raw stamp as UTC seconds and nanoseconds. */
static void
log_clock_convert(const struct log_clock *c, uint64_t raw, int64_t *sec,
    uint32_t *nsec)
{
	int64_t ns, dm;
	uint64_t dt;

	if (!log_use_tsc)
		ns = (int64_t)raw;
	else {
		dt = c->tsc1 - log_tsc0;
		dm = c->mono1 - log_mono0;
		ns = log_mono0 + c->rt_minus_mono;
		if (dt != 0)
			ns += (int64_t)((__int128)(int64_t)(raw - log_tsc0) *
			    dm / (__int128)dt);
	}
	*sec = ns / 1000000000;
	ns %= 1000000000;
	if (ns < 0) {
		ns += 1000000000;
		(*sec)--;
	}
	*nsec = (uint32_t)ns;
}

void
log_gather_init(size_t max_recent)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, log_atfork_once);

	log_clock_init();
	if (log_ring != NULL)
		munmap(log_ring, log_nslots * sizeof *log_ring);
	log_ring = NULL;
	log_nslots = 0;
	if (max_recent > 0) {
		if (max_recent > SIZE_MAX / sizeof *log_ring)
			max_recent = SIZE_MAX / sizeof *log_ring;
		/*
		 * Fresh anonymous pages: zero (every slot empty) and aligned
		 * past a cache line, without touching the megabytes of a big
		 * ring before the first entries do (a memset of 5 MB cost a
		 * restart 3 to 4 ms of page faults).
		 */
		log_ring = mmap(NULL, max_recent * sizeof *log_ring,
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (log_ring == MAP_FAILED) {
			/* mmap has no x*alloc twin: the same policy. */
			fprintf(stderr, "fatal: log ring of %zu entries: %s\n",
			    max_recent, strerror(errno));
			abort();
		}
		log_nslots = max_recent;
	}
	__atomic_store_n(&log_head.n, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&log_dropped.n, 0, __ATOMIC_RELAXED);
}

int
log_gather_has_ring(void)
{
	return log_ring != NULL;
}

uint64_t
log_gathered_count(void)
{
	uint64_t n = __atomic_load_n(&log_head.n, __ATOMIC_RELAXED);
	uint64_t d = __atomic_load_n(&log_dropped.n, __ATOMIC_RELAXED);

	return n - d;
}

/* Parsing formats. */

/* Parses fmt into its conversions, or marks it eager. */
static struct log_info *
log_parse(const char *fmt)
{
	struct log_info *li;
	struct log_conv *c;
	size_t len = strlen(fmt), i, n = 0, nargs = 0;
	const char *p;
	int ell;

	for (p = fmt; (p = strchr(p, '%')) != NULL; p++)
		n++;
	li = xcalloc(1, sizeof *li + n * sizeof *li->conv);
	if (len > UINT16_MAX - 1)
		goto eager;

	for (i = 0; i < len; i++) {
		if (fmt[i] != '%')
			continue;
		c = &li->conv[li->nconv++];
		c->start = (uint16_t)i;
		c->width = c->prec = -1;
		i++;
		while (i < len && strchr("-+ #0'I", fmt[i]) != NULL) {
			if (fmt[i] == '-')
				c->left = 1;
			i++;
		}
		c->flags_end = (uint16_t)i;
		if (fmt[i] == '*') {
			c->width_star = 1;
			nargs++;
			i++;
		} else if (fmt[i] >= '0' && fmt[i] <= '9') {
			c->width = 0;
			while (fmt[i] >= '0' && fmt[i] <= '9') {
				if (c->width > 100000)
					goto eager;
				c->width = c->width * 10 + (fmt[i++] - '0');
			}
		}
		if (fmt[i] == '$')
			goto eager;
		if (fmt[i] == '.') {
			i++;
			if (fmt[i] == '*') {
				c->prec_star = 1;
				nargs++;
				i++;
			} else {
				c->prec = 0;
				while (fmt[i] >= '0' && fmt[i] <= '9') {
					if (c->prec > 100000)
						goto eager;
					c->prec = c->prec * 10 + (fmt[i++] - '0');
				}
			}
			if (fmt[i] == '$')
				goto eager;
		}
		c->lm_start = (uint16_t)i;
		c->kind = LOG_K_INT;
		ell = 0;
		switch (fmt[i]) {
		case 'h':
			i++;
			if (fmt[i] == 'h')
				i++;
			break;
		case 'l':
			i++;
			c->kind = LOG_K_LONG;
			ell = 1;
			if (fmt[i] == 'l') {
				i++;
				c->kind = LOG_K_LLONG;
			}
			break;
		case 'q':
			i++;
			c->kind = LOG_K_LLONG;
			break;
		case 'z':
		case 'Z':
			i++;
			c->kind = LOG_K_SIZE;
			break;
		case 'j':
			i++;
			c->kind = LOG_K_INTMAX;
			break;
		case 't':
			i++;
			c->kind = LOG_K_PTRDIFF;
			break;
		case 'L':
			goto eager;	/* long double */
		}
		if (i >= len)
			goto eager;
		switch (fmt[i]) {
		case 'd':
		case 'i':
		case 'u':
		case 'o':
		case 'x':
		case 'X':
			break;
		case 'c':
			if (c->lm_start != i)
				goto eager;	/* %lc */
			c->kind = LOG_K_CHAR;
			break;
		case 'e':
		case 'E':
		case 'f':
		case 'F':
		case 'g':
		case 'G':
		case 'a':
		case 'A':
			if (c->lm_start != i && !ell)
				goto eager;
			c->kind = LOG_K_DOUBLE;
			break;
		case 'p':
			if (c->lm_start != i)
				goto eager;
			c->kind = LOG_K_PTR;
			break;
		case 's':
			if (c->lm_start != i)
				goto eager;	/* %ls */
			c->kind = LOG_K_STR;
			break;
		case 'm':
			if (c->lm_start != i)
				goto eager;
			c->kind = LOG_K_ERRNO;
			nargs--;
			break;
		case '%':
			if (i != (size_t)c->start + 1)
				goto eager;
			c->kind = LOG_K_PCT;
			nargs--;
			break;
		default:
			goto eager;	/* %n, %C, %S and the unknown */
		}
		nargs++;
		c->end = (uint16_t)(i + 1);
		if (c->end - c->start > 32)
			goto eager;
	}
	if (nargs > LOG_MAXARGS)
		goto eager;
	return li;

eager:
	free(li);
	return (struct log_info *)&log_info_eager;
}

/* The site's parsed format: parsed by the first caller, then shared. */
static const struct log_info *
log_site_info(struct log_site *site)
{
	struct log_info *li, *expected = NULL;

	li = __atomic_load_n((struct log_info **)&site->info,
	    __ATOMIC_ACQUIRE);
	if (likely(li != NULL))
		return li;
	li = log_parse(site->fmt);
	if (!__atomic_compare_exchange_n((struct log_info **)&site->info,
	    &expected, li, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Another thread published first: use its copy. */
		if (li != &log_info_eager)
			free(li);
		li = expected;
	}
	return li;
}

/* Gathering. */

/*
 * Claims the slot for a new entry, or returns NULL when there is no ring or
 * another writer still holds the slot (the ring wrapped around a writer that
 * is that far behind): the entry is then dropped rather than torn.
 */
static struct log_slot *
log_claim(uint64_t *idxp)
{
	struct log_slot *sl;
	uint64_t idx, old;

	if (log_ring == NULL)
		return NULL;
	idx = __atomic_fetch_add(&log_head.n, 1, __ATOMIC_RELAXED);
	sl = &log_ring[idx % log_nslots];
	old = __atomic_load_n(&sl->seq, __ATOMIC_RELAXED);
	if (old == LOG_SEQ_BUSY || !__atomic_compare_exchange_n(&sl->seq, &old,
	    LOG_SEQ_BUSY, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&log_dropped.n, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	/*
	 * A reader that copies any of the body written after this fence sees
	 * BUSY (or a later seq) when it checks seq again (a seqlock).
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*idxp = idx;
	return sl;
}

/* Makes a filled slot visible to readers: seq is written last. */
static void
log_publish(struct log_slot *sl, uint64_t idx)
{
	__atomic_store_n(&sl->seq, idx + 1, __ATOMIC_RELEASE);
}

static void
log_stamp(struct log_slot *sl, const struct log_site *site, int subsys,
    int level)
{
	sl->stamp = log_clock_raw();
	sl->tid = log_tid();
	sl->site = site;
	sl->subsys = (uint8_t)subsys;
	sl->level = (uint8_t)level;
	sl->flags = 0;
}

/* Copies the raw arguments of fmt's conversions from ap into sl. */
static void
log_fill(struct log_slot *sl, const struct log_info *li, va_list ap,
    int saved_errno)
{
	const struct log_conv *c;
	union log_val *v = sl->u.raw.args;
	size_t used = 0, room, n;
	const char *s;
	unsigned i;
	int prec;

	for (i = 0; i < li->nconv; i++) {
		c = &li->conv[i];
		prec = c->prec;
		if (c->width_star)
			(v++)->i = va_arg(ap, int);
		if (c->prec_star)
			prec = (v++)->i = va_arg(ap, int);
		switch (c->kind) {
		case LOG_K_PCT:
			break;
		case LOG_K_INT:
		case LOG_K_CHAR:
			(v++)->i = va_arg(ap, int);
			break;
		case LOG_K_LONG:
			(v++)->l = va_arg(ap, long);
			break;
		case LOG_K_LLONG:
			(v++)->ll = va_arg(ap, long long);
			break;
		case LOG_K_SIZE:
			(v++)->z = va_arg(ap, size_t);
			break;
		case LOG_K_INTMAX:
			(v++)->j = va_arg(ap, intmax_t);
			break;
		case LOG_K_PTRDIFF:
			(v++)->t = va_arg(ap, ptrdiff_t);
			break;
		case LOG_K_DOUBLE:
			(v++)->d = va_arg(ap, double);
			break;
		case LOG_K_PTR:
			(v++)->p = va_arg(ap, void *);
			break;
		case LOG_K_STR:
			s = va_arg(ap, const char *);
			v->s.off = (uint16_t)used;
			v->s.flags = 0;
			if (s == NULL) {
				v->s.flags = LOG_STR_NULL;
				v->s.len = 0;
				v++;
				break;
			}
			room = LOG_SLOT_DATA - used;
			if (prec >= 0 && (size_t)prec <= room)
				n = strnlen(s, (size_t)prec);
			else {
				n = strnlen(s, room + 1);
				if (n > room) {
					n = room;
					v->s.flags = LOG_STR_TRUNC;
				}
			}
			memcpy(sl->u.raw.data + used, s, n);
			used += n;
			(v++)->s.len = (uint16_t)n;
			break;
		case LOG_K_ERRNO:
			(v++)->i = saved_errno;
			break;
		}
	}
	sl->nargs = (uint8_t)(v - sl->u.raw.args);
	sl->used = (uint16_t)used;
}

/* Formatting. */

/* A bounded output buffer; `full` once something did not fit. */
struct log_buf {
	char *p;
	size_t len;
	size_t cap;	/* room for the text; the buffer has 8 more bytes */
	int full;
};
#define LOG_BUF_SLACK 8	/* "[...]", '\n', NUL */

static void
log_buf_put(struct log_buf *b, const char *s, size_t n)
{
	if (n > b->cap - b->len) {
		n = b->cap - b->len;
		b->full = 1;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void
log_buf_hex(struct log_buf *b, unsigned char ch)
{
	static const char hex[] = "0123456789abcdef";
	char e[4] = {'\\', 'x', hex[ch >> 4], hex[ch & 0xf]};

	log_buf_put(b, e, 4);
}

/* Length of the valid UTF-8 sequence at s (RFC 3629), 0 if invalid. */
static size_t
log_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;	/* nothing above U+10FFFF */
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return len;
}

/*
 * Appends s[0..n) escaped: control characters (C0, DEL, C1) and bytes that
 * are not UTF-8 as \xNN (\n \r \t by name); with bs, backslash as \\ too,
 * so that the result is unambiguous (string arguments).
 */
static void
log_buf_escape(struct log_buf *b, const char *s0, size_t n, int bs)
{
	const unsigned char *s = (const unsigned char *)s0;
	size_t i = 0, run, len;
	unsigned char c;

	while (i < n && !b->full) {
		for (run = i; run < n; run++) {
			c = s[run];
			if (c < 0x20 || c >= 0x7f || (c == '\\' && bs))
				break;
		}
		log_buf_put(b, s0 + i, run - i);
		if ((i = run) == n)
			break;
		c = s[i];
		if (c < 0x80) {
			if (c == '\n')
				log_buf_put(b, "\\n", 2);
			else if (c == '\r')
				log_buf_put(b, "\\r", 2);
			else if (c == '\t')
				log_buf_put(b, "\\t", 2);
			else if (c == '\\')
				log_buf_put(b, "\\\\", 2);
			else
				log_buf_hex(b, c);
			i++;
		} else if ((len = log_utf8_len(s + i, n - i)) == 0) {
			log_buf_hex(b, c);
			i++;
		} else if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) {
			log_buf_hex(b, c);	/* C1 control, U+0080..U+009F */
			log_buf_hex(b, s[i + 1]);
			i += 2;
		} else {
			log_buf_put(b, s0 + i, len);
			i += len;
		}
	}
}

char *
log_escape(const char *s, size_t maxlen)
{
	size_t n = strnlen(s, maxlen);
	struct log_buf b;

	if (n > (SIZE_MAX - LOG_BUF_SLACK) / 4)
		n = (SIZE_MAX - LOG_BUF_SLACK) / 4;
	b.cap = 4 * n;
	b.p = xmalloc(b.cap + 1);
	b.len = 0;
	b.full = 0;
	log_buf_escape(&b, s, n, 1);
	b.p[b.len] = '\0';
	return b.p;
}

/* Where the formatter takes argument values from: a slot or a va_list. */
struct log_src {
	const struct log_slot *sl;
	const union log_val *v;
	va_list ap;
	int saved_errno;
};

static int
log_src_int(struct log_src *src)
{
	if (src->sl != NULL)
		return (src->v++)->i;
	return va_arg(src->ap, int);
}

static union log_val
log_src_val(struct log_src *src, int kind)
{
	union log_val v;

	if (src->sl != NULL)
		return *src->v++;
	memset(&v, 0, sizeof v);
	switch (kind) {
	case LOG_K_INT:
	case LOG_K_CHAR:
		v.i = va_arg(src->ap, int);
		break;
	case LOG_K_LONG:
		v.l = va_arg(src->ap, long);
		break;
	case LOG_K_LLONG:
		v.ll = va_arg(src->ap, long long);
		break;
	case LOG_K_SIZE:
		v.z = va_arg(src->ap, size_t);
		break;
	case LOG_K_INTMAX:
		v.j = va_arg(src->ap, intmax_t);
		break;
	case LOG_K_PTRDIFF:
		v.t = va_arg(src->ap, ptrdiff_t);
		break;
	case LOG_K_DOUBLE:
		v.d = va_arg(src->ap, double);
		break;
	case LOG_K_PTR:
	case LOG_K_STR:
		v.p = va_arg(src->ap, const void *);
		break;
	case LOG_K_ERRNO:
		v.i = src->saved_errno;
		break;
	}
	return v;
}

/* Appends a string argument, escaped, padded to width. */
static void
log_put_str(struct log_buf *b, const char *s, size_t n, int trunc,
    int width, int left)
{
	size_t before = b->len, got, pad;

	if (width < 0) {
		left = 1;
		width = width == INT32_MIN ? 0 : -width;
	}
	log_buf_escape(b, s, n, 1);
	if (trunc)
		log_buf_put(b, "[...]", 5);
	got = b->len - before;
	if ((size_t)width <= got || b->full)
		return;
	pad = (size_t)width - got;
	if (pad > b->cap - b->len) {
		pad = b->cap - b->len;
		b->full = 1;
	}
	if (!left)
		memmove(b->p + before + pad, b->p + before, got);
	memset(b->p + (left ? b->len : before), ' ', pad);
	b->len += pad;
}

static void
log_put_num(struct log_buf *b, const char *fmt, const struct log_conv *c,
    int width, int prec, int kind, union log_val v)
{
	char spec[64];
	size_t n = 0, room;
	int r;

	/* The spec is at most 32 bytes; width and precision are clamped. */
	spec[n++] = '%';
	memcpy(spec + n, fmt + c->start + 1, c->flags_end - c->start - 1);
	n += c->flags_end - c->start - 1;
	if (width != -1 || c->width_star) {
		if (width < -100000 || width > 100000)
			width = width < 0 ? -100000 : 100000;
		r = snprintf(spec + n, sizeof spec - n, "%d", width);
		n += r > 0 ? (size_t)r : 0;
	}
	if (prec >= 0) {
		r = snprintf(spec + n, sizeof spec - n, ".%d",
		    prec > 100000 ? 100000 : prec);
		n += r > 0 ? (size_t)r : 0;
	}
	memcpy(spec + n, fmt + c->lm_start, c->end - c->lm_start);
	n += c->end - c->lm_start;
	spec[n] = '\0';

	room = b->cap - b->len;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	switch (kind) {
	case LOG_K_INT:
		r = snprintf(b->p + b->len, room + 1, spec, v.i);
		break;
	case LOG_K_LONG:
		r = snprintf(b->p + b->len, room + 1, spec, v.l);
		break;
	case LOG_K_LLONG:
		r = snprintf(b->p + b->len, room + 1, spec, v.ll);
		break;
	case LOG_K_SIZE:
		r = snprintf(b->p + b->len, room + 1, spec, v.z);
		break;
	case LOG_K_INTMAX:
		r = snprintf(b->p + b->len, room + 1, spec, v.j);
		break;
	case LOG_K_PTRDIFF:
		r = snprintf(b->p + b->len, room + 1, spec, v.t);
		break;
	case LOG_K_DOUBLE:
		r = snprintf(b->p + b->len, room + 1, spec, v.d);
		break;
	case LOG_K_PTR:
		r = snprintf(b->p + b->len, room + 1, spec, v.p);
		break;
	default:
		r = 0;
		break;
	}
#pragma GCC diagnostic pop
	if (r < 0)
		return;
	if ((size_t)r > room) {
		b->len = b->cap;
		b->full = 1;
	} else
		b->len += (size_t)r;
}

/* Formats the message of fmt from src into b. */
static void
log_format_msg(struct log_buf *b, const char *fmt, const struct log_info *li,
    struct log_src *src)
{
	const struct log_conv *c;
	union log_val v;
	const char *s;
	char ch, ebuf[128];
	size_t pos = 0, n;
	unsigned i;
	int width, prec, trunc;

	for (i = 0; i < li->nconv && !b->full; i++) {
		c = &li->conv[i];
		log_buf_escape(b, fmt + pos, c->start - pos, 0);
		pos = c->end;
		width = c->width_star ? log_src_int(src) : c->width;
		prec = c->prec_star ? log_src_int(src) : c->prec;
		switch (c->kind) {
		case LOG_K_PCT:
			log_buf_put(b, "%", 1);
			break;
		case LOG_K_CHAR:
			v = log_src_val(src, c->kind);
			ch = (char)(unsigned char)v.i;
			log_put_str(b, &ch, 1, 0, width, c->left);
			break;
		case LOG_K_STR:
			v = log_src_val(src, c->kind);
			trunc = 0;
			if (src->sl != NULL) {
				if (v.s.flags & LOG_STR_NULL)
					s = NULL;
				else {
					s = src->sl->u.raw.data + v.s.off;
					n = v.s.len;
					trunc = (v.s.flags & LOG_STR_TRUNC) != 0;
				}
			} else {
				s = v.p;
				if (s != NULL)
					n = prec >= 0 ? strnlen(s, (size_t)prec)
					    : strlen(s);
			}
			if (s == NULL) {
				s = "(null)";
				n = 6;
			}
			log_put_str(b, s, n, trunc, width, c->left);
			break;
		case LOG_K_ERRNO:
			v = log_src_val(src, c->kind);
			s = strerror_r(v.i, ebuf, sizeof ebuf);
			log_put_str(b, s, strlen(s), 0, width, c->left);
			break;
		default:
			v = log_src_val(src, c->kind);
			log_put_num(b, fmt, c, width, prec, c->kind, v);
			break;
		}
	}
	if (!b->full)
		log_buf_escape(b, fmt + pos, strlen(fmt + pos), 0);
}

/*
 * Writes the line prefix "2026-11-30T19:45:01.123456Z 1a2b mon 5 " into p
 * (at least 64 bytes) without locale, time-zone or stdio: the crash handler
 * uses it (log_gather_line_start).  Returns its length.
 */
static size_t
log_prefix(char *p, int64_t sec, uint32_t nsec, uint32_t tid, int subsys,
    int level)
{
	static const char hex[] = "0123456789abcdef";
	int64_t days, rem, z, era, doe, yoe, y, doy, mp, d, m;
	uint32_t usec = nsec / 1000;
	const char *name;
	char *q = p;
	int i, sh;

	days = sec / 86400;
	rem = sec % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	/* Days to civil date (H. Hinnant's algorithm, proleptic Gregorian). */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	if (m <= 2)
		y++;
	if (y < 0 || y > 9999)
		y = 0;

#define PUT2(x)                                                             \
	do {                                                                \
		*q++ = (char)('0' + (x) / 10);                              \
		*q++ = (char)('0' + (x) % 10);                              \
	} while (0)
	PUT2(y / 100);
	PUT2(y % 100);
	*q++ = '-';
	PUT2(m);
	*q++ = '-';
	PUT2(d);
	*q++ = 'T';
	PUT2(rem / 3600);
	*q++ = ':';
	PUT2(rem / 60 % 60);
	*q++ = ':';
	PUT2(rem % 60);
	*q++ = '.';
	PUT2(usec / 10000);
	PUT2(usec / 100 % 100);
	PUT2(usec % 100);
#undef PUT2
	*q++ = 'Z';
	*q++ = ' ';

	for (sh = 28; sh > 0 && (tid >> sh) == 0; sh -= 4)
		;
	for (; sh >= 0; sh -= 4)
		*q++ = hex[(tid >> sh) & 0xf];
	*q++ = ' ';

	name = subsys < LOG_NSUBSYS ? log_subsys_names[subsys] : "-";
	for (i = 0; name[i] != '\0'; i++)
		*q++ = name[i];
	*q++ = ' ';
	if (level >= 100)
		*q++ = (char)('0' + level / 100 % 10);
	if (level >= 10)
		*q++ = (char)('0' + level / 10 % 10);
	*q++ = (char)('0' + level % 10);
	*q++ = ' ';
	return (size_t)(q - p);
}

size_t
log_gather_line_start(char *p, int subsys, int level)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return log_prefix(p, ts.tv_sec, (uint32_t)ts.tv_nsec, log_tid(), subsys,
	    level);
}

/* Closes a line in b: the cut mark if it did not fit, and the newline. */
static void
log_buf_end(struct log_buf *b)
{
	if (b->full) {
		memcpy(b->p + b->len, "[...]", 5);
		b->len += 5;
	}
	b->p[b->len++] = '\n';
	b->p[b->len] = '\0';
}

/* Formats a gathered entry (a private copy) as a line. */
static void
log_format_slot(struct log_buf *b, const struct log_slot *sl,
    const struct log_clock *clock)
{
	struct log_src src;
	int64_t sec;
	uint32_t nsec;

	log_clock_convert(clock, sl->stamp, &sec, &nsec);
	b->len = log_prefix(b->p, sec, nsec, sl->tid, sl->subsys, sl->level);
	if (sl->flags & LOG_SLOT_EAGER) {
		log_buf_escape(b, sl->u.text, sl->used, 0);
		if (sl->flags & LOG_SLOT_CUT)
			b->full = 1;
	} else {
		memset(&src, 0, sizeof src);
		src.sl = sl;
		src.v = sl->u.raw.args;
		log_format_msg(b, sl->site->fmt, sl->site->info, &src);
	}
}

/* Writing and gathering. */

/* Gathers an entry from its raw arguments. */
static void
log_gather(struct log_site *site, const struct log_info *li, va_list ap,
    int saved_errno)
{
	struct log_slot *sl;
	uint64_t idx;

	if ((sl = log_claim(&idx)) == NULL)
		return;
	log_stamp(sl, site, site->subsys, site->level);
	log_fill(sl, li, ap, saved_errno);
	log_publish(sl, idx);
}

void
log_gather_text(int subsys, int level, enum log_prio prio, const char *text,
    size_t n, int wfile, int wgather)
{
	char line[LOG_LINE_MAX + LOG_BUF_SLACK];
	struct log_slot *sl;
	struct log_buf b;
	uint64_t idx;

	/* The slot keeps what fits in it; the written line keeps all of n. */
	if (wgather && (sl = log_claim(&idx)) != NULL) {
		size_t kept = n;

		log_stamp(sl, NULL, subsys, level);
		sl->flags = LOG_SLOT_EAGER;
		if (kept > sizeof sl->u.text) {
			sl->flags |= LOG_SLOT_CUT;
			kept = sizeof sl->u.text;
		}
		memcpy(sl->u.text, text, kept);
		sl->used = (uint16_t)kept;
		log_publish(sl, idx);
	}
	if (wfile) {
		b.p = line;
		b.cap = LOG_LINE_MAX - 1;
		b.full = 0;
		b.len = log_gather_line_start(line, subsys, level);
		log_buf_escape(&b, text, n, 0);
		log_buf_end(&b);
		log_emit(line, b.len, prio);
	}
}

/* A format the raw path cannot take: format it now (printf's own rules). */
static printflike(3, 0) void
log_dout_eager(struct log_site *site, int wfile, const char *fmt, va_list ap,
    int wgather)
{
	char text[LOG_LINE_MAX];
	int n;

	n = vsnprintf(text, sizeof text, fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof text)
		n = sizeof text - 1;
	log_gather_text(site->subsys, site->level, LOG_P_DEBUG, text, (size_t)n,
	    wfile, wgather);
}

/*
 * The written case (and eager formats): out of line, so that the gathering
 * path does not carry this frame's line buffer.
 */
static __attribute__((noinline)) void
log_dout_write(struct log_site *site, const struct log_info *li, int wfile,
    int wgather, va_list ap, int saved_errno)
{
	char line[LOG_LINE_MAX + LOG_BUF_SLACK];
	struct timespec ts;
	struct log_src src;
	struct log_buf b;

	if (unlikely(li->eager)) {
		errno = saved_errno;	/* for %m */
		/* site->fmt is the literal the dout macro's format attribute
		 * checked against these arguments; clang cannot see that. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		log_dout_eager(site, wfile, site->fmt, ap, wgather);
#pragma GCC diagnostic pop
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	memset(&src, 0, sizeof src);
	src.saved_errno = saved_errno;
	if (wgather) {
		va_copy(src.ap, ap);
		log_gather(site, li, src.ap, saved_errno);
		va_end(src.ap);
	}
	b.p = line;
	b.cap = LOG_LINE_MAX - 1;
	b.full = 0;
	b.len = log_prefix(line, ts.tv_sec, (uint32_t)ts.tv_nsec, log_tid(),
	    site->subsys, site->level);
	va_copy(src.ap, ap);
	log_format_msg(&b, site->fmt, li, &src);
	va_end(src.ap);
	log_buf_end(&b);
	log_emit(line, b.len, LOG_P_DEBUG);
}

void
log_dout(struct log_site *site, ...)
{
	const struct log_info *li;
	va_list ap;
	int saved_errno = errno, s = site->subsys, lvl = site->level;
	int wfile, wgather;

	li = log_site_info(site);
	wfile = lvl <= __atomic_load_n(&log_file_level[s], __ATOMIC_RELAXED);
	wgather = log_ring != NULL &&
	    lvl <= __atomic_load_n(&log_gather_level[s], __ATOMIC_RELAXED);

	va_start(ap, site);
	if (likely(!wfile && !li->eager)) {
		/* The common case when enabled: gathered, not written. */
		if (wgather)
			log_gather(site, li, ap, saved_errno);
	} else
		log_dout_write(site, li, wfile, wgather, ap, saved_errno);
	va_end(ap);
	errno = saved_errno;
}

/* Reading the ring. */

/*
 * Copies entry idx out of the ring if it is there whole: seq is checked
 * before and after the copy (a seqlock), so a slot being rewritten is
 * skipped.  The copy races with writers by design; only a copy whose seq did
 * not change is used.
 */
static int
log_slot_read(uint64_t idx, struct log_slot *copy)
{
	struct log_slot *sl = &log_ring[idx % log_nslots];
	uint64_t s1, s2;

	s1 = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
	if (s1 != idx + 1)
		return 0;
	memcpy(copy, sl, sizeof *copy);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&sl->seq, __ATOMIC_RELAXED);
	return s1 == s2;
}

/* The indexes of the entries the ring can still hold: [*first, *end). */
static void
log_ring_range(uint64_t *first, uint64_t *end)
{
	*end = __atomic_load_n(&log_head.n, __ATOMIC_ACQUIRE);
	*first = *end > log_nslots ? *end - log_nslots : 0;
}

void
log_dump_recent(int fd)
{
	static const char begin[] = "--- begin dump of recent events ---\n";
	static const char end[] = "--- end dump of recent events ---\n";
	char line[LOG_LINE_MAX + LOG_BUF_SLACK];
	struct log_clock clock;
	struct log_slot copy;
	struct log_buf b;
	uint64_t i, first, last;
	int saved_errno = errno;

	log_write_fd(fd, begin, sizeof begin - 1);
	if (log_ring != NULL) {
		log_clock_sample(&clock);
		log_ring_range(&first, &last);
		for (i = first; i < last; i++) {
			if (!log_slot_read(i, &copy))
				continue;
			b.p = line;
			b.cap = LOG_LINE_MAX - 1;
			b.full = 0;
			log_format_slot(&b, &copy, &clock);
			log_buf_end(&b);
			log_write_fd(fd, line, b.len);
		}
	}
	log_write_fd(fd, end, sizeof end - 1);
	errno = saved_errno;
}

void
log_recent_foreach(void (*cb)(const struct log_entry_view *, void *),
    void *arg)
{
	char line[LOG_LINE_MAX + LOG_BUF_SLACK];
	struct log_entry_view view;
	struct log_clock clock;
	struct log_slot copy;
	struct log_buf b;
	uint64_t i, first, last;
	size_t start;
	int64_t sec;
	uint32_t nsec;

	if (log_ring == NULL)
		return;
	log_clock_sample(&clock);
	log_ring_range(&first, &last);
	for (i = first; i < last; i++) {
		if (!log_slot_read(i, &copy))
			continue;
		b.p = line;
		b.cap = LOG_LINE_MAX - 1;
		b.full = 0;
		log_format_slot(&b, &copy, &clock);
		log_buf_end(&b);
		b.p[--b.len] = '\0';	/* no newline in a view */

		/* The message starts after "stamp tid subsys level ". */
		log_clock_convert(&clock, copy.stamp, &sec, &nsec);
		start = log_prefix(line, sec, nsec, copy.tid, copy.subsys,
		    copy.level);
		view.stamp.tv_sec = sec;
		view.stamp.tv_nsec = nsec;
		view.tid = copy.tid;
		view.subsys = copy.subsys < LOG_NSUBSYS ? copy.subsys : -1;
		view.subsys_name = copy.subsys < LOG_NSUBSYS ?
		    log_subsys_names[copy.subsys] : "-";
		view.level = copy.level;
		view.text = line + start;
		view.len = b.len - start;
		cb(&view, arg);
	}
}
