/* fork: the tracer's locks are held across it, and the child forgets
 * what it inherited. */
#pragma once

/* Registers the handlers once (pthread_atfork); later calls do nothing. */
void vt_fork_handlers_register(void);
