/*
 * bench_plot.h: the benchmarks' plots (the cold start's time against PGs
 * per set-up, the detect benchmark's PGs waiting against time) as data and
 * a script for gnuplot, which draws them when it is installed.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include <stddef.h>

/*
 * One line of the plot: y[i] at x[i], i < n (y <= 0: no point), drawn in
 * colour number colour (series of one set-up share it), dashed or not.
 */
struct bench_plot_series {
	const char *name;
	size_t n;
	const double *x;
	const double *y;
	int colour;
	int dashed;
};

/*
 * Write the data (DIR/BASE.dat) and a gnuplot script (DIR/BASE.gp) for the
 * series, with title and the axis labels, then draw DIR/BASE.svg by running
 * gnuplot on the script in DIR when gnuplot is on the PATH.  Returns 1 when
 * gnuplot drew it; 0 when it did not, with *cause saying why (gnuplot is
 * not on the PATH, or it failed: its own messages went to standard error),
 * and any older DIR/BASE.svg removed so that no plot of other data stands
 * beside the new files; -1 with *cause when the data or the script could
 * not be written.  The caller frees *cause.
 */
int bench_plot(const char *dir, const char *base, const char *title,
    const char *xlabel, const char *ylabel,
    const struct bench_plot_series *s, size_t ns, char **cause);

/* How a plot is drawn; bench_plot() is { 1, 1, 0, 0, 0 }. */
struct bench_plot_style {
	int log_y;	 /* a logarithmic y axis */
	int ticks_first; /* a tick at each x of the first series */
	int x_decimals;	 /* digits after the point of x in the data */
	int steps;	 /* each series as steps, not lines and points */
	int key_below;	 /* the key under the plot, not beside it */
};

/* bench_plot() drawn as st says. */
int bench_plot_styled(const char *dir, const char *base, const char *title,
    const char *xlabel, const char *ylabel, const struct bench_plot_style *st,
    const struct bench_plot_series *s, size_t ns, char **cause);

#endif /* BENCH_PLOT_H */
