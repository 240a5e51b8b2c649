/*
** nuts_windows.c -- Stan's windowed adaptation schedule.
**
** Warmup is a fast initial buffer (step size only), a series of slow windows
** that double in length (the metric is re-estimated at the end of each), and
** a terminal buffer (step size only).  The last slow window is stretched to
** reach the terminal buffer, so no window is shorter than the one before.
** Counters are unsigned as in Stan: the fallback sizes truncate the same way.
*/
#include "nuts_int.h"

void nuts_windows_set(nuts_windows *w, int num_warmup, int init_buffer,
                      int term_buffer, int base_window) {
  w->num_warmup = 0;
  w->init_buffer = 0;
  w->term_buffer = 0;
  w->base_window = 0;
  if (num_warmup < 20) {
    /* no metric estimation at all: the window test below is never true */
  } else if (init_buffer + base_window + term_buffer > num_warmup) {
    w->num_warmup = (unsigned)num_warmup;
    w->init_buffer = (unsigned)(0.15 * num_warmup);
    w->term_buffer = (unsigned)(0.1 * num_warmup);
    w->base_window = (unsigned)num_warmup - (w->init_buffer + w->term_buffer);
  } else {
    w->num_warmup = (unsigned)num_warmup;
    w->init_buffer = (unsigned)init_buffer;
    w->term_buffer = (unsigned)term_buffer;
    w->base_window = (unsigned)base_window;
  }
  w->counter = 0;
  w->window_size = w->base_window;
  w->next_window = w->init_buffer + w->window_size - 1;
}

int nuts_windows_in(const nuts_windows *w) {
  return w->counter >= w->init_buffer &&
         w->counter < w->num_warmup - w->term_buffer &&
         w->counter != w->num_warmup;
}

int nuts_windows_end(const nuts_windows *w) {
  return w->counter == w->next_window && w->counter != w->num_warmup;
}

void nuts_windows_next(nuts_windows *w) {
  unsigned last = w->num_warmup - w->term_buffer - 1;
  if (w->next_window == last) return;
  w->window_size *= 2;
  w->next_window = w->counter + w->window_size;
  if (w->next_window != last) {
    unsigned boundary = w->next_window + 2 * w->window_size;
    if (boundary >= w->num_warmup - w->term_buffer) w->next_window = last;
  }
}
