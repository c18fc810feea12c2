/*
 * plot_render.c - runs gnuplot on a script; see plot_render.h.
 *
 * gnuplot is started with fork and execvp in the output directory, with an
 * argv and no shell, and its exit status is checked. Its absence is not an
 * error: the script is still useful.
 */
#include "analyze/plot_render.h"
#include "lib/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/db.h"
#include "lib/tmpfile.h"

/* What the child reports through the pipe when it cannot exec gnuplot. */
struct plot_exec_failure {
	int in_chdir;   /* 1: chdir(dir) failed, 0: execvp failed */
	int errnum;
};

/* In the child: go to dir, stdin from /dev/null, exec gnuplot with the
 * image's temporary name set. Never returns. */
static void plot_child(const char *dir, const char *script, const char *set_output,
		       int report_fd)
{
	char *argv[] = { (char *)"gnuplot", (char *)"-e", (char *)set_output, (char *)script,
			 NULL };
	struct plot_exec_failure why = { 1, 0 };
	int null_fd;

	if (chdir(dir) == 0) {
		why.in_chdir = 0;
		null_fd = open("/dev/null", O_RDONLY);
		if (null_fd >= 0 && null_fd != STDIN_FILENO) {
			dup2(null_fd, STDIN_FILENO);
			close(null_fd);
		}
		execvp(argv[0], argv);
	}
	why.errnum = errno;
	if (write(report_fd, &why, sizeof(why)) < 0)
		_exit(127);
	_exit(127);
}

static int plot_gnuplot(const char *dir, const char *script, const char *set_output,
			int *missing, char *err, size_t errlen);

/*
 * Renders the script in dir into its image, dir/image: gnuplot writes a
 * file created exclusively under a fresh name (lib/tmpfile.h), renamed
 * into place when it succeeded, so a link planted at the image's name is
 * replaced, never written through. Sets *missing when gnuplot is not on
 * PATH.
 */
int plot_render(const char *dir, const char *script, const char *image, int *missing,
		char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + sizeof(TMPFILE_SUFFIX)], set[PATH_MAX + 32];
	const char *base;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, image);
	if (!(f = tmpfile_create(path, tmp, sizeof(tmp)))) {
		errmsg_set(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return DB_ERR_WORK;
	}
	fclose(f);
	base = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp;
	snprintf(set, sizeof(set), "tb_output = '%s'", base);
	rc = plot_gnuplot(dir, script, set, missing, err, errlen);
	if (rc == DB_OK && !*missing && rename(tmp, path) != 0) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		rc = DB_ERR_WORK;
	}
	if (rc != DB_OK || *missing)
		unlink(tmp);
	return rc;
}

/*
 * Runs gnuplot on the script in dir and waits for it. Sets *missing when
 * gnuplot is not on PATH. The close-on-exec pipe tells an exec failure
 * (the child writes why) from gnuplot's own exit status (EOF).
 */
static int plot_gnuplot(const char *dir, const char *script, const char *set_output,
			int *missing, char *err, size_t errlen)
{
	struct plot_exec_failure why;
	int fds[2];
	ssize_t got;
	pid_t pid;
	int status;

	*missing = 0;
	if (pipe(fds) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
		errmsg_set(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		return DB_ERR_WORK;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		errmsg_set(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return DB_ERR_WORK;
	}
	if (pid == 0) {
		close(fds[0]);
		plot_child(dir, script, set_output, fds[1]);
	}
	close(fds[1]);
	do
		got = read(fds[0], &why, sizeof(why));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			errmsg_set(err, errlen, "cannot wait for gnuplot: %s", strerror(errno));
			return DB_ERR_WORK;
		}
	}
	if (got == (ssize_t)sizeof(why)) {
		if (!why.in_chdir && why.errnum == ENOENT) {
			*missing = 1;
			return DB_OK;
		}
		errmsg_set(err, errlen, why.in_chdir ? "cannot enter '%s': %s"
			    : "cannot run gnuplot in '%s': %s", dir, strerror(why.errnum));
		return DB_ERR_WORK;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return DB_OK;
	if (WIFEXITED(status))
		errmsg_set(err, errlen, "gnuplot failed on '%s/%s' (exit status %d)", dir,
			    script, WEXITSTATUS(status));
	else
		errmsg_set(err, errlen, "gnuplot failed on '%s/%s' (signal %d)", dir, script,
			    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return DB_ERR_WORK;
}
