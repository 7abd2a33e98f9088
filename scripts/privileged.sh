# Sourced by the install scripts. `privileged_runner` sets the array `runner` to the prefix that
# runs a command as root: nothing when this is root, sudo when it works without a password;
# otherwise it returns 1 and the caller says what to run by hand.
privileged_runner() {
    if [ "$(id -u)" -eq 0 ]; then
        runner=()
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        runner=(sudo)
    else
        return 1
    fi
}
