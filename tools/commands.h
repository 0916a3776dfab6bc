/* One function per subcommand; each returns the process exit status. */
#pragma once

int vt_command_run(int argc, char **argv);
int vt_command_report(int argc, char **argv);
int vt_command_diff(int argc, char **argv);
int vt_command_check(int argc, char **argv);
int vt_command_merge(int argc, char **argv);
int vt_command_fit(int argc, char **argv);
int vt_command_snapshot(int argc, char **argv);
int vt_command_ps(int argc, char **argv);
int vt_command_top(int argc, char **argv);
int vt_command_metrics(int argc, char **argv);
