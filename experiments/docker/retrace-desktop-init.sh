#!/bin/sh
# PID 1 of a retrace container desktop: X server, window manager and session bus, then wait.
# Ends everything promptly on SIGTERM (and waits for them: Xvfb removes its socket and lock) so
# `docker stop` does not wait for its timeout.
set -u
SCREEN=${RETRACE_SCREEN:-1280x800}
mkdir -p /tmp/retrace && chmod 1777 /tmp/retrace
Xvfb :99 -screen 0 "${SCREEN}x24" -nolisten tcp >/tmp/retrace/xvfb.log 2>&1 &
XVFB=$!
for i in $(seq 1 100); do xdpyinfo -display :99 >/dev/null 2>&1 && break; sleep 0.05; done
runuser -u cua -- dbus-daemon --session --nofork --address=unix:path=/tmp/retrace/bus >/tmp/retrace/dbus.log 2>&1 &
BUS=$!
runuser -u cua -- env DISPLAY=:99 matchbox-window-manager -use_titlebar no >/tmp/retrace/wm.log 2>&1 &
WM=$!
touch /tmp/retrace/ready
trap 'kill $WM $BUS $XVFB 2>/dev/null; wait $WM $BUS $XVFB 2>/dev/null; exit 0' TERM INT
while :; do sleep 3600 & wait $!; done
