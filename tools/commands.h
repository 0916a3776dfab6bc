/* One function per subcommand; each returns the process exit status. */
#pragma once

int vt_command_run(int argc, char **argv);
