# Shared by setup-bwrap.sh and setup-chromium.sh (sourced, not run): installs one Debian package with
# apt-get when it is missing, this is root and apt-get exists; otherwise says why and what to do. It never
# fails its caller, so a CI run continues and the tests that need the package skip with their own reason.
#
#   apt_install <tag> <name> <package> <present-fn> <describe-fn> <without> [<install note>]
#
# <present-fn> succeeds when the program is there; <describe-fn> prints where (and which version) it is;
# <without> says what happens until it is installed.
apt_get_install() {
  apt-get install -y -qq --no-install-recommends "$1" >/dev/null 2>&1 && "$2"
}

apt_install() {
  local tag="$1" name="$2" package="$3" present="$4" describe="$5" without="$6" note="${7:-}"
  if "$present"; then
    echo "$tag: $name already installed ($("$describe"))"
    return 0
  fi
  if [ "$(id -u)" != "0" ]; then
    echo "$tag: $name is missing and this is not root, so it cannot be installed here."
    echo "$tag: install it yourself (Debian/Ubuntu: sudo apt-get install -y $package); until then $without."
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$tag: $name is missing and apt-get is not available (not a Debian-like system)."
    echo "$tag: install $package with your package manager; until then $without."
    return 0
  fi
  echo "$tag: installing $package with apt-get$note ..."
  export DEBIAN_FRONTEND=noninteractive
  # One update serves both scripts (bwrap, then chromium): skipped when the package lists are less
  # than an hour old, and run after all when the install then fails (the lists were stale).
  local fresh
  fresh="$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -60 2>/dev/null | head -1)"
  if [ -z "$fresh" ] && ! apt-get update -qq >/dev/null 2>&1; then
    echo "$tag: apt-get update failed (no network or no package mirror?); trying the install anyway."
  fi
  if apt_get_install "$package" "$present" ||
    { [ -n "$fresh" ] && apt-get update -qq >/dev/null 2>&1 && apt_get_install "$package" "$present"; }; then
    echo "$tag: installed $package ($("$describe"))"
  else
    echo "$tag: apt-get install $package failed; $without."
  fi
  return 0
}
