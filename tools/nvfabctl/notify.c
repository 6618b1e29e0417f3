// SPDX-License-Identifier: GPL-2.0
/*
 * The service manager's notification protocol (sd_notify(3)), for
 * nvfab-boot.service, which is Type=notify: "READY=1" when the boot may
 * go on, and "STATUS=..." lines that "systemctl status nvfab-boot" shows
 * (which controllers are still missing, and why). A datagram to the
 * AF_UNIX socket that $NOTIFY_SOCKET names ("@NAME" is an abstract one);
 * without the variable, outside systemd, nothing is sent. No libsystemd:
 * the protocol is one sendto().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nvfabctl.h"

/* Is a service manager listening: is $NOTIFY_SOCKET set? */
bool nvf_notify_enabled(void)
{
	const char *path = getenv("NOTIFY_SOCKET");

	return path && (path[0] == '/' || path[0] == '@');
}

/*
 * Send one notification, @msg: "KEY=VALUE" lines. Failures are reported
 * once and otherwise ignored: the connects matter more than the status
 * line.
 */
void nvf_notify(const char *msg)
{
	static bool reported;
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t salen;
	size_t plen;
	int fd;

	if (!nvf_notify_enabled())
		return;
	plen = strlen(path);
	if (plen >= sizeof(sa.sun_path)) {
		if (!reported)
			nvf_warn("NOTIFY_SOCKET is too long: no status for the service manager");
		reported = true;
		return;
	}
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	salen = offsetof(struct sockaddr_un, sun_path) + plen;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
			     (struct sockaddr *)&sa, salen) < 0) {
		if (!reported)
			nvf_warn("cannot notify the service manager at %s: %s",
				 path, strerror(errno));
		reported = true;
	}
	if (fd >= 0)
		close(fd);
}
