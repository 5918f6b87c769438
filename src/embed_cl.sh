#!/bin/sh
# Turns each cl/NAME.cl given as an argument into a C string in a table
# {"NAME", "text"}, so the installed library never needs a data path.
set -e
echo '/* Generated from the cl/ sources by src/embed_cl.sh; do not edit. */'
echo '#include "program.h"'
echo 'const oclconv__cl_source oclconv__cl_sources[] = {'
for f in "$@"; do
    name=$(basename "$f" .cl)
    printf '    {"%s",\n' "$name"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/     "/' -e 's/$/\\n"/' "$f"
    printf '    },\n'
done
echo '    {0, 0}'
echo '};'
