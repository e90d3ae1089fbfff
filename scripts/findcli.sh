# Sourced by the scripts that run mmscope-cli (fidelity.sh, kernel-sweep.sh, native-table.sh).
# find_cli SCRIPT ROOT: keeps $cli when it is set (--cli PATH, or $MMSCOPE_CLI), else sets it to the newest
# build/*/app/mmscope-cli under ROOT, else to mmscope-cli on PATH; exits 2 with a message naming SCRIPT when none
# is an executable.
find_cli() {
    if [[ -z $cli ]]; then
        cli=$(ls -t "$2"/build/*/app/mmscope-cli 2>/dev/null | head -1 || true)
        [[ -n $cli ]] || cli=$(command -v mmscope-cli || true)
    fi
    if [[ -z $cli || ! -x $cli ]]; then
        echo "$1: no mmscope-cli found (build one with scripts/build.sh engine, or give --cli PATH)" >&2
        exit 2
    fi
}
