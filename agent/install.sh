#!/bin/sh
# Installs and starts the device access agent on this Linux device, for the server below.
#
#   curl -fsSL SERVER/install.sh | sh -s -- --tenant TENANT_ID
#   wget -qO- SERVER/install.sh | sh -s -- --tenant TENANT_ID
#
# The server fills in its address, the agent's version and the bundle's checksum when it serves
# this script (GET /install.sh). What it does, where files go and how to remove them:
# docs/agent-install.md of the service, or --help.
set -eu

SERVER_URL=@SERVER_URL@
AGENT_VERSION=@AGENT_VERSION@
AGENT_SHA256=@AGENT_SHA256@
NODE_MINIMUM=@NODE_MINIMUM@
NAME=device-access-agent
UNIT=/etc/systemd/system/$NAME.service

usage() {
	cat <<EOF
Installs the device access agent $AGENT_VERSION for $SERVER_URL and starts it.

usage: sh install.sh --tenant TENANT_ID [options]
  --tenant ID       the namespace the device joins (its tenant id; TENANT_ID)
  --server URL      the server's address as this device reaches it (SERVER_ADDRESS;
                    default: $SERVER_URL, the server's PUBLIC_URL)
  --hostname NAME   the device's name (PREFERRED_HOSTNAME; default: the system's hostname)
  --private-key FILE  a device key (RSA, PEM) to use (PRIVATE_KEY; default: one made on first
                    start in DIR/data/agent.key)
  --dir DIR         where the agent, its configuration and its key go (INSTALL_DIR;
                    default: /opt/$NAME as root, else ~/.local/share/$NAME)
  --no-service      install and configure only; print how to start the agent
  --foreground      run the agent in the foreground, even where systemd could run it
  --uninstall       stop the agent and remove it, its configuration and its key
  -h, --help        this text

As root with systemd, the agent becomes the service $NAME (enabled, started).
Otherwise it runs in the foreground (Ctrl-C stops it) unless --no-service is given.
Running the script again upgrades the agent and keeps its key (the device stays the same).
EOF
}

say() { printf '%s\n' "$*"; }
fail() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}
has() { command -v "$1" >/dev/null 2>&1; }

server=${SERVER_ADDRESS:-$SERVER_URL}
tenant=${TENANT_ID:-}
hostname=${PREFERRED_HOSTNAME:-}
private_key=${PRIVATE_KEY:-}
dir=${INSTALL_DIR:-}
start=auto
action=install
while [ $# -gt 0 ]; do
	case $1 in
	--server | --tenant | --tenant-id | --hostname | --private-key | --dir)
		[ $# -ge 2 ] || fail "$1 needs a value"
		case $1 in
		--server) server=$2 ;;
		--tenant | --tenant-id) tenant=$2 ;;
		--hostname) hostname=$2 ;;
		--private-key) private_key=$2 ;;
		--dir) dir=$2 ;;
		esac
		shift 2
		;;
	--server=*) server=${1#*=} && shift ;;
	--tenant=* | --tenant-id=*) tenant=${1#*=} && shift ;;
	--hostname=*) hostname=${1#*=} && shift ;;
	--private-key=*) private_key=${1#*=} && shift ;;
	--dir=*) dir=${1#*=} && shift ;;
	--no-service) start=none && shift ;;
	--foreground) start=foreground && shift ;;
	--uninstall) action=uninstall && shift ;;
	-h | --help) usage && exit 0 ;;
	*) fail "unknown option '$1' (--help lists them)" ;;
	esac
done

[ "$(uname -s)" = Linux ] || fail "the agent runs on Linux; this is $(uname -s)"
is_root=false
[ "$(id -u)" = 0 ] && is_root=true
has_systemd=false
[ -d /run/systemd/system ] && has systemctl && has_systemd=true

if [ -z "$dir" ]; then
	if $is_root; then dir=/opt/$NAME; else dir=${XDG_DATA_HOME:-${HOME:?HOME is not set}/.local/share}/$NAME; fi
fi
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
case $dir in *[!A-Za-z0-9_./@+-]*) fail "--dir: use a path of letters, digits and . _ - + @ / only: $dir" ;; esac
config=$dir/agent.env
launcher=$dir/$NAME

# The unit is ours when it starts this directory's launcher.
ours_unit() { [ -f "$UNIT" ] && grep -qxF "ExecStart=$launcher" "$UNIT"; }

if [ "$action" = uninstall ]; then
	if $is_root && ours_unit; then
		say "stopping and removing the service $NAME"
		if $has_systemd; then systemctl disable --now "$NAME.service" || true; fi
		rm -f "$UNIT"
		if $has_systemd; then systemctl daemon-reload; fi
	fi
	if [ -f "$config" ]; then
		say "removing $dir (the agent, its configuration and the device key)"
		rm -rf "$dir"
	else
		say "no agent installed in $dir"
	fi
	say "done. The device stays listed on the server until a member removes it."
	exit 0
fi

# A re-run (an upgrade) keeps the installed agent's namespace, name and key file unless told others.
setting() { sed -n "s/^$1='\\(.*\\)'\$/\\1/p" "$config" 2>/dev/null || true; }
if [ -f "$config" ]; then
	[ -n "$tenant" ] || tenant=$(setting TENANT_ID)
	[ -n "$hostname" ] || hostname=$(setting PREFERRED_HOSTNAME)
	[ -n "$private_key" ] || private_key=$(setting PRIVATE_KEY)
fi
server=${server%/}
printf '%s\n' "$server" | grep -Eqx 'https?://[][A-Za-z0-9_./:@%+=~,-]+' ||
	fail "--server: not an http:// or https:// address of letters, digits and URL punctuation: $server"
[ -n "$tenant" ] || fail "--tenant is required: the namespace's tenant id, shown in the console (--help)"
printf '%s\n' "$tenant" | grep -Eqx '[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}' ||
	fail "--tenant: not a tenant id (a UUID): $tenant"
if [ -n "$hostname" ]; then
	printf '%s\n' "$hostname" | grep -Eqx '[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?' ||
		fail "--hostname: use letters, digits and inner hyphens (at most 63): $hostname"
fi

if [ -n "$private_key" ]; then
	case $private_key in /*) ;; *) private_key=$(pwd)/$private_key ;; esac
	case $private_key in *[!A-Za-z0-9_./@+-]*) fail "--private-key: use a path of letters, digits and . _ - + @ / only" ;; esac
	[ -r "$private_key" ] || fail "--private-key: cannot read $private_key"
fi

# Node.js runs the agent; the script installs nothing of the system's.
node=$(command -v node || command -v nodejs || true)
[ -n "$node" ] || fail "Node.js $NODE_MINIMUM or later is needed and was not found.
  Debian 13: apt-get install nodejs; Alpine: apk add nodejs; older Debian and Ubuntu releases
  ship an older one: https://github.com/nodesource/distributions or https://nodejs.org.
  Then run this command again."
"$node" -e '
const [major, minor] = process.versions.node.split(".").map(Number);
const [needMajor, needMinor] = process.argv[1].split(".").map(Number);
process.exit(major > needMajor || (major === needMajor && minor >= needMinor) ? 0 : 1);
' "$NODE_MINIMUM" || fail "Node.js $NODE_MINIMUM or later is needed; $node is $("$node" --version). Install a newer one and run this again."
case $node in *[!A-Za-z0-9_./@+-]*) fail "Node.js is at a path this script does not write into files: $node" ;; esac
has tar || fail "tar is needed to unpack the agent"

say "installing the device access agent $AGENT_VERSION from $server into $dir"
mkdir -p "$dir"
chmod 700 "$dir"
work=$(mktemp -d "$dir/.install.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The server's PUBLIC_URL may be an address only the server itself reaches (localhost, the default).
unreached="the download from $server failed"
case $server in
*://localhost[:/]* | *://localhost | *://127.* | *://\[::1\]*)
	unreached="$unreached: that address is the device's own; set the server's PUBLIC_URL to an address devices reach, or pass --server URL"
	;;
esac
say "downloading $server/agent/agent.tar.gz"
if has curl; then
	curl -fsSL -o "$work/agent.tar.gz" "$server/agent/agent.tar.gz" || fail "$unreached"
elif has wget; then
	wget -q -O "$work/agent.tar.gz" "$server/agent/agent.tar.gz" || fail "$unreached"
else
	fail "curl or wget is needed to download the agent"
fi
sum=$("$node" -e '
const data = require("fs").readFileSync(process.argv[1]);
process.stdout.write(require("crypto").createHash("sha256").update(data).digest("hex"));
' "$work/agent.tar.gz")
[ "$sum" = "$AGENT_SHA256" ] ||
	fail "the download's checksum is $sum, not $AGENT_SHA256 (the server was upgraded meanwhile? run the command again)"
mkdir "$work/app"
tar -xzf "$work/agent.tar.gz" -C "$work/app" || fail "unpacking the agent failed"

# The new version replaces the old one; the key in data/ stays.
rm -rf "$dir/app.old"
[ ! -d "$dir/app" ] || mv "$dir/app" "$dir/app.old"
mv "$work/app" "$dir/app"
rm -rf "$dir/app.old"
mkdir -p "$dir/data"
chmod 700 "$dir/data"
say "agent files in $dir/app"

{
	say "# The device access agent's configuration, written by install.sh; read by $launcher."
	say "SERVER_ADDRESS='$server'"
	say "TENANT_ID='$tenant'"
	say "AGENT_DATA_DIR='$dir/data'"
	if [ -n "$private_key" ]; then
		say "PRIVATE_KEY='$private_key'"
	else
		say "# The device key: AGENT_DATA_DIR/agent.key, made on first start (PRIVATE_KEY='FILE' to use another)."
	fi
	[ -z "$hostname" ] || say "PREFERRED_HOSTNAME='$hostname'"
} >"$work/agent.env"
chmod 600 "$work/agent.env"
mv "$work/agent.env" "$config"
say "configuration in $config (device key: ${private_key:-$dir/data/agent.key, made on first start})"

cat >"$work/launcher" <<EOF
#!/bin/sh
# Starts the device access agent with the configuration in $config.
set -a
. '$config'
set +a
exec '$node' '$dir/app/agent.mjs' "\$@"
EOF
chmod 755 "$work/launcher"
mv "$work/launcher" "$launcher"
say "start command: $launcher"

if ! $is_root; then
	say "note: not run as root, the agent serves only the account $(id -un), with keys (no passwords)."
fi

if [ "$start" = auto ] && $is_root && $has_systemd; then
	cat >"$work/unit" <<EOF
[Unit]
Description=Device access agent for $(printf '%s' "$server" | sed 's/%/%%/g')
After=network-online.target
Wants=network-online.target

[Service]
ExecStart=$launcher
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
EOF
	mv "$work/unit" "$UNIT"
	systemctl daemon-reload
	systemctl enable "$NAME.service" >/dev/null 2>&1 || fail "systemctl enable $NAME.service failed"
	systemctl restart "$NAME.service" || fail "the service did not start: journalctl -u $NAME"
	say "service $NAME enabled and started (its log: journalctl -u $NAME -f)"
	say "the device now waits in the console as pending until a member accepts it"
	exit 0
fi

if [ "$start" = none ]; then
	say "not started (--no-service): run $launcher"
	exit 0
fi

say "starting the agent in the foreground (Ctrl-C stops it; start it again with $launcher)"
say "the device waits in the console as pending until a member accepts it"
if $is_root && ours_unit; then
	say "note: the service $NAME is installed too; two agents with one key compete (systemctl disable --now $NAME)"
fi
rm -rf "$work"
trap - EXIT INT TERM
exec "$launcher"
