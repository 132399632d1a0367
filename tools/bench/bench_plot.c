/* bench_plot.c: the benchmarks' plots, as gnuplot data and script. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/mapmon.h"
#include "tools/bench/bench_plot.h"

#define PLOT_W 760
#define PLOT_H 460

/* Is gnuplot on the PATH? */
static int
plot_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *p;
	int found = 0;

	if (path == NULL)
		return 0;
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	    dir = strtok_r(NULL, ":", &save)) {
		xasprintf(&p, "%s/gnuplot", dir);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

static int
plot_close(FILE *f, const char *path, char **cause)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* One gnuplot data block per series, two blank lines apart. */
static int
plot_write_dat(const char *path, const struct bench_plot_style *st,
    const struct bench_plot_series *s, size_t ns, char **cause)
{
	FILE *f;
	size_t i, j;

	if ((f = fopen(path, "w")) == NULL) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < ns; i++) {
		fprintf(f, "# %s\n", s[i].name);
		for (j = 0; j < s[i].n; j++)
			if (s[i].y[j] > 0)
				fprintf(f, "%.*f %.6f\n", st->x_decimals,
				    s[i].x[j], s[i].y[j]);
		fprintf(f, "\n\n");
	}
	return plot_close(f, path, cause);
}

/* The x axis from 0; a tick at each x of the first series if asked. */
static int
plot_write_gp(const char *path, const char *base, const char *title,
    const char *xlabel, const char *ylabel, const struct bench_plot_style *st,
    const struct bench_plot_series *s, size_t ns, char **cause)
{
	FILE *f;
	size_t i;

	if ((f = fopen(path, "w")) == NULL) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f,
	    "set terminal svg size %d,%d background '#ffffff'\n"
	    "set output '%s.svg'\nset title '%s'\nset xlabel '%s'\n"
	    "set ylabel '%s'\n%sset grid\nset key %s\nset xrange [0:*]\n",
	    PLOT_W, PLOT_H, base, title, xlabel, ylabel,
	    st->log_y ? "set logscale y\n" : "",
	    st->key_below ? "below Left reverse" :
			    "outside right top Left reverse");
	if (st->ticks_first && ns > 0 && s[0].n > 0) {
		fprintf(f, "set xtics (");
		for (i = 0; i < s[0].n; i++)
			fprintf(f, "%s%.0f", i ? ", " : "", s[0].x[i]);
		fprintf(f, ")\n");
	}
	fprintf(f, "plot ");
	for (i = 0; i < ns; i++)
		fprintf(f,
		    "%s'%s.dat' index %zu with %s lw 2 "
		    "lc %d dt %d title '%s'",
		    i ? ", \\\n     " : "", base, i,
		    st->steps ? "steps" : "linespoints", s[i].colour + 1,
		    s[i].dashed ? 2 : 1, s[i].name);
	fprintf(f, "\n");
	return plot_close(f, path, cause);
}

/* Run gnuplot on BASE.gp in dir: 0, or -1 with *cause. */
static int
plot_run_gnuplot(const char *dir, const char *base, char **cause)
{
	char *cmd;
	int st;

	if (!plot_have_gnuplot()) {
		xasprintf(cause, "gnuplot is not on the PATH (Debian: "
		    "gnuplot-nox)");
		return -1;
	}
	xasprintf(&cmd, "cd '%s' && gnuplot '%s.gp'", dir, base);
	st = system(cmd);
	free(cmd);
	if (st == -1)
		xasprintf(cause, "cannot run gnuplot: %s", strerror(errno));
	else if (WIFSIGNALED(st))
		xasprintf(cause, "gnuplot was killed by signal %d",
		    WTERMSIG(st));
	else if (WEXITSTATUS(st) != 0)
		xasprintf(cause, "gnuplot failed with exit status %d",
		    WEXITSTATUS(st));
	else
		return 0;
	return -1;
}

int
bench_plot(const char *dir, const char *base, const char *title,
    const char *xlabel, const char *ylabel,
    const struct bench_plot_series *s, size_t ns, char **cause)
{
	static const struct bench_plot_style cold = { 1, 1, 0, 0, 0 };

	return bench_plot_styled(dir, base, title, xlabel, ylabel, &cold, s, ns,
	    cause);
}

int
bench_plot_styled(const char *dir, const char *base, const char *title,
    const char *xlabel, const char *ylabel, const struct bench_plot_style *st,
    const struct bench_plot_series *s, size_t ns, char **cause)
{
	char *dat, *gp, *svg;
	int rc = -1;

	xasprintf(&dat, "%s/%s.dat", dir, base);
	xasprintf(&gp, "%s/%s.gp", dir, base);
	xasprintf(&svg, "%s/%s.svg", dir, base);
	if (plot_write_dat(dat, st, s, ns, cause) == -1 ||
	    plot_write_gp(gp, base, title, xlabel, ylabel, st, s, ns, cause) ==
		-1)
		goto out;
	if (plot_run_gnuplot(dir, base, cause) == 0)
		rc = 1;
	else {
		(void)unlink(svg);
		rc = 0;
	}
out:
	free(dat);
	free(gp);
	free(svg);
	return rc;
}
