/* The control endpoint's requests, answered with the library's report of
 * this moment. */
#pragma once

/* Starts the endpoint when the configuration asks for one. */
void vt_library_control_start(void);
