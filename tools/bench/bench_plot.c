/* bench_plot.c: the cold start plot, by gnuplot or as plain SVG. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/mapmon.h"
#include "tools/bench/bench_plot.h"

#define PLOT_W 760
#define PLOT_H 460
#define PLOT_L 80	/* margins: room for labels and the legend */
#define PLOT_R 230
#define PLOT_T 40
#define PLOT_B 60

static const char *const plot_colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f",
};
#define PLOT_NCOLOURS (sizeof plot_colours / sizeof plot_colours[0])

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

static void
plot_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* y on a log scale between 10^lo and 10^hi, to pixels. */
static double
plot_y(double y, double lo, double hi)
{
	double h = PLOT_H - PLOT_T - PLOT_B;

	return PLOT_T + h - (log10(y) - lo) / (hi - lo) * h;
}

static double
plot_x(double x, double x0, double x1)
{
	double w = PLOT_W - PLOT_L - PLOT_R;

	return PLOT_L + (x - x0) / (x1 - x0) * w;
}

static int
plot_svg(const char *path, const char *title, const char *xlabel,
    const char *ylabel, const struct bench_plot_series *s, size_t ns,
    char **cause)
{
	FILE *f;
	double ymin = INFINITY, ymax = 0, x1 = 0, lo, hi, px, py, v;
	size_t i, j;
	int e, first;

	for (i = 0; i < ns; i++)
		for (j = 0; j < s[i].n; j++) {
			if (s[i].x[j] > x1)
				x1 = s[i].x[j];
			if (s[i].y[j] <= 0)
				continue;
			if (s[i].y[j] < ymin)
				ymin = s[i].y[j];
			if (s[i].y[j] > ymax)
				ymax = s[i].y[j];
		}
	if (ymax == 0) {
		ymin = 0.1;
		ymax = 1;
	}
	if (x1 == 0)
		x1 = 1;
	lo = floor(log10(ymin));
	hi = ceil(log10(ymax));
	if (hi <= lo)
		hi = lo + 1;
	if ((f = fopen(path, "w")) == NULL) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
	    PLOT_W, PLOT_H);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\">", PLOT_L);
	plot_escape(f, title);
	fprintf(f, "</text>\n");
	/* Decades and their labels. */
	for (e = (int)lo; e <= (int)hi; e++) {
		py = plot_y(pow(10, e), lo, hi);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#ddd\"/>\n<text x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\">%g</text>\n", PLOT_L, py,
		    PLOT_W - PLOT_R, py, PLOT_L - 6, py + 4, pow(10, e));
	}
	/* x ticks at each x of the first series. */
	for (j = 0; ns > 0 && j < s[0].n; j++) {
		px = plot_x(s[0].x[j], 0, x1);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%d\" "
		    "text-anchor=\"middle\">%.0f</text>\n", px, PLOT_T, px,
		    PLOT_H - PLOT_B, px, PLOT_H - PLOT_B + 16, s[0].x[j]);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
	    "fill=\"none\" stroke=\"black\"/>\n", PLOT_L, PLOT_T,
	    PLOT_W - PLOT_L - PLOT_R, PLOT_H - PLOT_T - PLOT_B);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
	    PLOT_L + (PLOT_W - PLOT_L - PLOT_R) / 2, PLOT_H - 20);
	plot_escape(f, xlabel);
	fprintf(f, "</text>\n<text transform=\"translate(20,%d) "
	    "rotate(-90)\" text-anchor=\"middle\">", PLOT_T +
	    (PLOT_H - PLOT_T - PLOT_B) / 2);
	plot_escape(f, ylabel);
	fprintf(f, "</text>\n");
	for (i = 0; i < ns; i++) {
		const char *c = plot_colours[(size_t)s[i].colour %
		    PLOT_NCOLOURS];
		const char *dash = s[i].dashed ?
		    " stroke-dasharray=\"6,4\"" : "";

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\"%s points=\"", c, dash);
		first = 1;
		for (j = 0; j < s[i].n; j++) {
			if ((v = s[i].y[j]) <= 0)
				continue;
			fprintf(f, "%s%.1f,%.1f", first ? "" : " ",
			    plot_x(s[i].x[j], 0, x1), plot_y(v, lo, hi));
			first = 0;
		}
		fprintf(f, "\"/>\n");
		for (j = 0; j < s[i].n; j++)
			if (s[i].y[j] > 0)
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" "
				    "r=\"3\" fill=\"%s\"/>\n", plot_x(s[i].x[j],
				    0, x1), plot_y(s[i].y[j], lo, hi), c);
		py = PLOT_T + 10 + 20 * (double)i;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"%s\" stroke-width=\"2\"%s/>\n<text x=\"%d\" "
		    "y=\"%.1f\">", PLOT_W - PLOT_R + 12, py,
		    PLOT_W - PLOT_R + 40, py, c, dash, PLOT_W - PLOT_R + 46,
		    py + 4);
		plot_escape(f, s[i].name);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
	if (fclose(f) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
bench_plot(const char *dir, const char *base, const char *title,
    const char *xlabel, const char *ylabel,
    const struct bench_plot_series *s, size_t ns, char **cause)
{
	FILE *f;
	char *dat, *gp, *svg, *cmd;
	size_t i, j;
	int rc = -1, st;

	xasprintf(&dat, "%s/%s.dat", dir, base);
	xasprintf(&gp, "%s/%s.gp", dir, base);
	xasprintf(&svg, "%s/%s.svg", dir, base);
	if ((f = fopen(dat, "w")) == NULL) {
		xasprintf(cause, "%s: %s", dat, strerror(errno));
		goto out;
	}
	/* One gnuplot data block per series, two blank lines apart. */
	for (i = 0; i < ns; i++) {
		fprintf(f, "# %s\n", s[i].name);
		for (j = 0; j < s[i].n; j++)
			if (s[i].y[j] > 0)
				fprintf(f, "%.0f %.6f\n", s[i].x[j],
				    s[i].y[j]);
		fprintf(f, "\n\n");
	}
	fclose(f);
	if ((f = fopen(gp, "w")) == NULL) {
		xasprintf(cause, "%s: %s", gp, strerror(errno));
		goto out;
	}
	fprintf(f, "set terminal svg size %d,%d background '#ffffff'\n"
	    "set output '%s.svg'\nset title '%s'\nset xlabel '%s'\n"
	    "set ylabel '%s'\nset logscale y\nset grid\nset key outside\n"
	    "plot ", PLOT_W, PLOT_H, base, title, xlabel, ylabel);
	for (i = 0; i < ns; i++)
		fprintf(f, "%s'%s.dat' index %zu with linespoints lw 2 "
		    "lc %d dt %d title '%s'", i ? ", \\\n     " : "", base, i,
		    s[i].colour + 1, s[i].dashed ? 2 : 1, s[i].name);
	fprintf(f, "\n");
	fclose(f);

	if (plot_have_gnuplot()) {
		xasprintf(&cmd, "cd '%s' && gnuplot '%s.gp'", dir, base);
		st = system(cmd);
		free(cmd);
		if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			rc = 1;
			goto out;
		}
	}
	rc = plot_svg(svg, title, xlabel, ylabel, s, ns, cause) == 0 ? 0 : -1;
out:
	free(dat);
	free(gp);
	free(svg);
	return rc;
}
