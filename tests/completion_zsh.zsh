# Drives the zsh completion the way a user does: an interactive zsh on a
# pseudo-terminal (zsh/zpty) with compinit and COMPDIR on fpath gets LINE and
# a Tab; every candidate the completion functions add (compadd, wrapped) is
# written to OUT, one per line, as zsh matched it against the word.
# Usage: zsh -f completion_zsh.zsh COMPDIR OUT LINE
zmodload zsh/zpty || exit 77
compdir=$1 out=$2 line=$3
: >| $out
zpty comp zsh -f -i
zpty -w comp "fpath=(${(q)compdir} \$fpath); autoload -Uz compinit; compinit -u -D"
# The wrapper adds the candidates as asked and writes what matched.
zpty -w comp 'compadd() { local -a matched; builtin compadd -O matched "$@";' \
  'print -rl -- $matched >>'${(q)out}'; builtin compadd "$@"; }'
zpty -w comp "print -r -- ready >>${(q)out}.ready"
# Wait for the shell to take the setup, then Tab.
for i in {1..100}; do [[ -s $out.ready ]] && break; sleep 0.05; done
zpty -w -n comp "$line"$'\t'
# Done when the candidates stop coming (or after 5 s).
last=-1
for i in {1..50}; do
  sleep 0.1
  zpty -r -t comp junk
  size=$(wc -c <$out)
  (( size > 0 && size == last )) && break
  last=$size
done
zpty -d comp
rm -f $out.ready
