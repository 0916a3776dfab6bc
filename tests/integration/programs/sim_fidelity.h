/* The checks sim_fidelity.c and its companions share. */
#pragma once

/* Prints what was checked and whether it behaved as CUDA does. */
void check(const char *what, int ok);
/* Entry points under their older ABIs, reached by name. */
void older_entry_points(void);
