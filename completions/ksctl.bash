# bash completion for ksctl, generated from its commands (npm run completions)
# load it with: source <(ksctl completion bash)

# The subcommand a word leads to from a path ("markings" + "ls" = "markings list").
_ksctl_path() {
  case "$1|$2" in
    '|markings') echo 'markings' ;;
    '|marking') echo 'markings' ;;
    '|enroll') echo 'enroll' ;;
    '|profiles') echo 'profiles' ;;
    '|profile') echo 'profiles' ;;
    '|keys') echo 'keys' ;;
    '|key') echo 'keys' ;;
    '|context') echo 'context' ;;
    '|status') echo 'status' ;;
    '|mock') echo 'mock' ;;
    '|conformance') echo 'conformance' ;;
    '|api') echo 'api' ;;
    '|completion') echo 'completion' ;;
    '|demo') echo 'demo' ;;
    'markings|list') echo 'markings list' ;;
    'markings|ls') echo 'markings list' ;;
    'markings|get') echo 'markings get' ;;
    'markings|create') echo 'markings create' ;;
    'markings|update') echo 'markings update' ;;
    'markings|delete') echo 'markings delete' ;;
    'markings|rm') echo 'markings delete' ;;
    'markings|apply') echo 'markings apply' ;;
    'markings|export') echo 'markings export' ;;
    'markings|values') echo 'markings values' ;;
    'markings|value') echo 'markings values' ;;
    'markings values|list') echo 'markings values list' ;;
    'markings values|ls') echo 'markings values list' ;;
    'markings values|get') echo 'markings values get' ;;
    'markings values|add') echo 'markings values add' ;;
    'markings values|update') echo 'markings values update' ;;
    'markings values|delete') echo 'markings values delete' ;;
    'markings values|rm') echo 'markings values delete' ;;
    'profiles|list') echo 'profiles list' ;;
    'profiles|ls') echo 'profiles list' ;;
    'profiles|show') echo 'profiles show' ;;
    'profiles|use') echo 'profiles use' ;;
    'profiles|delete') echo 'profiles delete' ;;
    'profiles|rm') echo 'profiles delete' ;;
    'profiles|convert') echo 'profiles convert' ;;
    'profiles|check') echo 'profiles check' ;;
    'keys|create') echo 'keys create' ;;
    'keys|fetch') echo 'keys fetch' ;;
    'keys|get') echo 'keys fetch' ;;
    'keys|modify') echo 'keys modify' ;;
    'context|add') echo 'context add' ;;
    'context|set') echo 'context set' ;;
    'context|unset') echo 'context unset' ;;
    'context|rename') echo 'context rename' ;;
    'context|use') echo 'context use' ;;
    'context|list') echo 'context list' ;;
    'context|ls') echo 'context list' ;;
    'context|show') echo 'context show' ;;
    'context|remove') echo 'context remove' ;;
    'context|rm') echo 'context remove' ;;
    'mock|serve') echo 'mock serve' ;;
    'mock|tokens') echo 'mock tokens' ;;
    'mock|outbox') echo 'mock outbox' ;;
    'mock|requests') echo 'mock requests' ;;
    'mock|devices') echo 'mock devices' ;;
    'mock|messages') echo 'mock messages' ;;
    'mock|console') echo 'mock console' ;;
    'mock|capture') echo 'mock capture' ;;
    'mock|record') echo 'mock record' ;;
    'mock|ca') echo 'mock ca' ;;
    'mock|faults') echo 'mock faults' ;;
    'mock|reset') echo 'mock reset' ;;
    'mock|state') echo 'mock state' ;;
    'mock requests|show') echo 'mock requests show' ;;
    'mock faults|list') echo 'mock faults list' ;;
    'mock faults|ls') echo 'mock faults list' ;;
    'mock faults|set') echo 'mock faults set' ;;
    'mock faults|clear') echo 'mock faults clear' ;;
    'mock state|check') echo 'mock state check' ;;
    'mock state|recover') echo 'mock state recover' ;;
    *) return 1 ;;
  esac
}

# What the value of a flag is (choice WORDS, name KIND, file or text); fails for a switch.
_ksctl_option() {
  case "$1|$2" in
    'markings list|--name') echo 'text' ;;
    'markings list|--contains') echo 'text' ;;
    'markings list|--starts-with') echo 'text' ;;
    'markings list|--value-limit') echo 'text' ;;
    'markings list|--limit') echo 'text' ;;
    'markings list|--filter') echo 'text' ;;
    'markings get|--value-limit') echo 'text' ;;
    'markings create|--value') echo 'text' ;;
    'markings create|--description') echo 'text' ;;
    'markings create|--default-value') echo 'text' ;;
    'markings create|-f') echo 'file' ;;
    'markings create|--file') echo 'file' ;;
    'markings update|--rename') echo 'text' ;;
    'markings update|--description') echo 'text' ;;
    'markings update|--default-value') echo 'name value' ;;
    'markings update|--add-value') echo 'text' ;;
    'markings update|--remove-value') echo 'name value' ;;
    'markings update|--set-values') echo 'text' ;;
    'markings update|-f') echo 'file' ;;
    'markings update|--file') echo 'file' ;;
    'markings delete|--if-version') echo 'text' ;;
    'markings apply|-f') echo 'file' ;;
    'markings apply|--file') echo 'file' ;;
    'markings apply|--concurrency') echo 'text' ;;
    'markings export|--file') echo 'file' ;;
    'markings export|--name') echo 'text' ;;
    'markings export|--contains') echo 'text' ;;
    'markings export|--starts-with') echo 'text' ;;
    'markings export|--concurrency') echo 'text' ;;
    'markings export|--filter') echo 'text' ;;
    'markings values list|--name') echo 'text' ;;
    'markings values list|--contains') echo 'text' ;;
    'markings values list|--limit') echo 'text' ;;
    'markings values list|--filter') echo 'text' ;;
    'markings values add|--description') echo 'text' ;;
    'markings values update|--rename') echo 'text' ;;
    'markings values update|--description') echo 'text' ;;
    'enroll|--keyspace') echo 'text' ;;
    'enroll|--api-url') echo 'text' ;;
    'enroll|--enrollment-url') echo 'text' ;;
    'enroll|--kns-url') echo 'text' ;;
    'enroll|--stoken-file') echo 'file' ;;
    'enroll|--uidauth-file') echo 'file' ;;
    'enroll|--username') echo 'text' ;;
    'enroll|--password-file') echo 'file' ;;
    'enroll|--email') echo 'text' ;;
    'enroll|--registration-code-file') echo 'file' ;;
    'enroll|--mock-user') echo 'text' ;;
    'enroll|--tokens-file') echo 'file' ;;
    'enroll|--name') echo 'text' ;;
    'enroll|--count') echo 'text' ;;
    'enroll|--concurrency') echo 'text' ;;
    'enroll|--persistor') echo 'choice plaintext password aesgcm' ;;
    'enroll|--persistor-path') echo 'file' ;;
    'enroll|--persistor-password-file') echo 'file' ;;
    'enroll|--persistor-version') echo 'choice 1.0 1.1' ;;
    'enroll|--persistor-aesgcm-key-file') echo 'file' ;;
    'enroll|--persistor-aesgcm-adata') echo 'text' ;;
    'profiles list|--persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles list|--persistor-path') echo 'file' ;;
    'profiles list|--persistor-password-file') echo 'file' ;;
    'profiles list|--persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles list|--persistor-aesgcm-key-file') echo 'file' ;;
    'profiles list|--persistor-aesgcm-adata') echo 'text' ;;
    'profiles show|--persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles show|--persistor-path') echo 'file' ;;
    'profiles show|--persistor-password-file') echo 'file' ;;
    'profiles show|--persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles show|--persistor-aesgcm-key-file') echo 'file' ;;
    'profiles show|--persistor-aesgcm-adata') echo 'text' ;;
    'profiles use|--persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles use|--persistor-path') echo 'file' ;;
    'profiles use|--persistor-password-file') echo 'file' ;;
    'profiles use|--persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles use|--persistor-aesgcm-key-file') echo 'file' ;;
    'profiles use|--persistor-aesgcm-adata') echo 'text' ;;
    'profiles delete|--persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles delete|--persistor-path') echo 'file' ;;
    'profiles delete|--persistor-password-file') echo 'file' ;;
    'profiles delete|--persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles delete|--persistor-aesgcm-key-file') echo 'file' ;;
    'profiles delete|--persistor-aesgcm-adata') echo 'text' ;;
    'profiles convert|--to-persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles convert|--to-path') echo 'file' ;;
    'profiles convert|--to-password-file') echo 'file' ;;
    'profiles convert|--to-persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles convert|--to-aesgcm-key-file') echo 'file' ;;
    'profiles convert|--to-aesgcm-adata') echo 'text' ;;
    'profiles convert|--persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles convert|--persistor-path') echo 'file' ;;
    'profiles convert|--persistor-password-file') echo 'file' ;;
    'profiles convert|--persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles convert|--persistor-aesgcm-key-file') echo 'file' ;;
    'profiles convert|--persistor-aesgcm-adata') echo 'text' ;;
    'profiles check|--api-version') echo 'text' ;;
    'profiles check|--persistor') echo 'choice plaintext password aesgcm' ;;
    'profiles check|--persistor-path') echo 'file' ;;
    'profiles check|--persistor-password-file') echo 'file' ;;
    'profiles check|--persistor-version') echo 'choice 1.0 1.1' ;;
    'profiles check|--persistor-aesgcm-key-file') echo 'file' ;;
    'profiles check|--persistor-aesgcm-adata') echo 'text' ;;
    'keys create|--ref') echo 'text' ;;
    'keys create|--count') echo 'text' ;;
    'keys create|--attr') echo 'text' ;;
    'keys create|--protected-attr') echo 'text' ;;
    'keys create|--mutable-attr') echo 'text' ;;
    'keys create|--profile') echo 'name profile' ;;
    'keys create|--api-version') echo 'text' ;;
    'keys create|--persistor') echo 'choice plaintext password aesgcm' ;;
    'keys create|--persistor-path') echo 'file' ;;
    'keys create|--persistor-password-file') echo 'file' ;;
    'keys create|--persistor-version') echo 'choice 1.0 1.1' ;;
    'keys create|--persistor-aesgcm-key-file') echo 'file' ;;
    'keys create|--persistor-aesgcm-adata') echo 'text' ;;
    'keys fetch|--profile') echo 'name profile' ;;
    'keys fetch|--api-version') echo 'text' ;;
    'keys fetch|--persistor') echo 'choice plaintext password aesgcm' ;;
    'keys fetch|--persistor-path') echo 'file' ;;
    'keys fetch|--persistor-password-file') echo 'file' ;;
    'keys fetch|--persistor-version') echo 'choice 1.0 1.1' ;;
    'keys fetch|--persistor-aesgcm-key-file') echo 'file' ;;
    'keys fetch|--persistor-aesgcm-adata') echo 'text' ;;
    'keys modify|--attr') echo 'text' ;;
    'keys modify|--protected-attr') echo 'text' ;;
    'keys modify|--profile') echo 'name profile' ;;
    'keys modify|--api-version') echo 'text' ;;
    'keys modify|--persistor') echo 'choice plaintext password aesgcm' ;;
    'keys modify|--persistor-path') echo 'file' ;;
    'keys modify|--persistor-password-file') echo 'file' ;;
    'keys modify|--persistor-version') echo 'choice 1.0 1.1' ;;
    'keys modify|--persistor-aesgcm-key-file') echo 'file' ;;
    'keys modify|--persistor-aesgcm-adata') echo 'text' ;;
    'context add|--username') echo 'text' ;;
    'context add|--password-file') echo 'file' ;;
    'context add|--api-url') echo 'text' ;;
    'context add|--enrollment-url') echo 'text' ;;
    'context add|--kns-url') echo 'text' ;;
    'context add|--keyspace') echo 'text' ;;
    'context add|--persistor') echo 'choice plaintext password aesgcm' ;;
    'context add|--persistor-path') echo 'file' ;;
    'mock serve|--host') echo 'text' ;;
    'mock serve|--port') echo 'text' ;;
    'mock serve|--seed') echo 'file' ;;
    'mock serve|--state') echo 'file' ;;
    'mock serve|--dev-token') echo 'text' ;;
    'mock serve|--latency') echo 'text' ;;
    'mock serve|--fault') echo 'text' ;;
    'mock serve|--ready-file') echo 'file' ;;
    'mock serve|--tls-name') echo 'text' ;;
    'mock serve|--tls-cert') echo 'file' ;;
    'mock serve|--tls-key') echo 'file' ;;
    'mock tokens|--user') echo 'text' ;;
    'mock tokens|--keyspace') echo 'text' ;;
    'mock outbox|--to') echo 'text' ;;
    'mock requests|--tail') echo 'text' ;;
    'mock requests|--interval') echo 'text' ;;
    'mock capture|--out') echo 'file' ;;
    'mock capture|--concurrency') echo 'text' ;;
    'mock record|--target') echo 'name context' ;;
    'mock record|--host') echo 'text' ;;
    'mock record|--port') echo 'text' ;;
    'mock record|--out') echo 'file' ;;
    'mock record|--ready-file') echo 'file' ;;
    'mock record|--profiles') echo 'file' ;;
    'mock state recover|--to') echo 'text' ;;
    'conformance|--junit') echo 'file' ;;
    'conformance|--replay') echo 'file' ;;
    'conformance|--seed') echo 'file' ;;
    'api|--query') echo 'text' ;;
    'api|-H') echo 'text' ;;
    'api|--header') echo 'text' ;;
    'api|--input') echo 'file' ;;
    *'|--context') echo 'name context' ;;
    *'|--base-url') echo 'text' ;;
    *'|--token-file') echo 'file' ;;
    *'|-o') echo 'choice table json yaml' ;;
    *'|--output') echo 'choice table json yaml' ;;
    *'|--ca-file') echo 'file' ;;
    *'|--timeout') echo 'text' ;;
    *) return 1 ;;
  esac
}

# What the Nth (from 0) positional argument of a command is.
_ksctl_argument() {
  local specs=() variadic=0
  case "$1" in
    'markings get') specs=('name marking') variadic=0 ;;
    'markings create') specs=('text') variadic=0 ;;
    'markings update') specs=('name marking') variadic=0 ;;
    'markings delete') specs=('name marking') variadic=1 ;;
    'markings values list') specs=('name marking') variadic=0 ;;
    'markings values get') specs=('name marking' 'name value') variadic=0 ;;
    'markings values add') specs=('text' 'text') variadic=1 ;;
    'markings values update') specs=('name marking' 'name value') variadic=0 ;;
    'markings values delete') specs=('name marking' 'name value') variadic=1 ;;
    'profiles show') specs=('name profile') variadic=0 ;;
    'profiles use') specs=('name profile') variadic=0 ;;
    'profiles delete') specs=('name profile') variadic=0 ;;
    'profiles check') specs=('name profile') variadic=0 ;;
    'keys fetch') specs=('text') variadic=1 ;;
    'keys modify') specs=('text') variadic=0 ;;
    'context add') specs=('text') variadic=0 ;;
    'context set') specs=('name context' 'text') variadic=1 ;;
    'context unset') specs=('name context' 'text') variadic=1 ;;
    'context rename') specs=('name context' 'text') variadic=0 ;;
    'context use') specs=('name context') variadic=0 ;;
    'context show') specs=('name context') variadic=0 ;;
    'context remove') specs=('name context') variadic=0 ;;
    'mock requests show') specs=('text') variadic=0 ;;
    'mock faults set') specs=('text') variadic=1 ;;
    'mock state check') specs=('text') variadic=0 ;;
    'mock state recover') specs=('text') variadic=0 ;;
    'api') specs=('text' 'text') variadic=0 ;;
    'completion') specs=('choice bash zsh fish') variadic=0 ;;
    *) return 1 ;;
  esac
  if (($2 < ${#specs[@]})); then echo "${specs[$2]}"
  elif ((variadic)); then echo "${specs[${#specs[@]}-1]}"
  else return 1; fi
}

# The subcommands and long flags of a command.
_ksctl_words() {
  local subcommands="" flags=""
  case "$1" in
    '') subcommands='markings enroll profiles keys context status mock conformance api completion demo' flags='--version --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager --help' ;;
    'markings') subcommands='list get create update delete apply export values' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings list') subcommands='' flags='--name --contains --starts-with --public --no-public --value-limit --limit --filter --or --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings get') subcommands='' flags='--value-limit --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings create') subcommands='' flags='--value --description --public --admin-only --default-value --file --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings update') subcommands='' flags='--rename --description --public --no-public --admin-only --no-admin-only --default-value --no-default-value --add-value --remove-value --set-values --file --yes --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings delete') subcommands='' flags='--yes --if-version --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings apply') subcommands='' flags='--file --dry-run --exit-code --prune --yes --concurrency --verbose --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings export') subcommands='' flags='--file --force --name --contains --starts-with --public --no-public --concurrency --filter --or --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings values') subcommands='list get add update delete' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings values list') subcommands='' flags='--name --contains --limit --filter --or --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings values get') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings values add') subcommands='' flags='--description --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings values update') subcommands='' flags='--rename --description --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'markings values delete') subcommands='' flags='--yes --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'enroll') subcommands='' flags='--keyspace --api-url --enrollment-url --kns-url --stoken-file --uidauth-file --username --password-file --email --registration-code-file --mock-user --tokens-file --name --no-set-active --count --concurrency --verify --no-verify --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles') subcommands='list show use delete convert check' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles list') subcommands='' flags='--persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles show') subcommands='' flags='--show-secrets --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles use') subcommands='' flags='--persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles delete') subcommands='' flags='--yes --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles convert') subcommands='' flags='--to-persistor --to-path --to-password-file --to-persistor-version --to-aesgcm-key-file --to-aesgcm-adata --force --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'profiles check') subcommands='' flags='--api-version --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'keys') subcommands='create fetch modify' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'keys create') subcommands='' flags='--ref --count --attr --protected-attr --mutable-attr --profile --show-secrets --api-version --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'keys fetch') subcommands='' flags='--profile --show-secrets --api-version --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'keys modify') subcommands='' flags='--attr --protected-attr --clear --yes --force --profile --show-secrets --api-version --persistor --persistor-path --persistor-password-file --persistor-version --persistor-aesgcm-key-file --persistor-aesgcm-adata --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context') subcommands='add set unset rename use list show remove' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context add') subcommands='' flags='--username --password-file --api-url --enrollment-url --kns-url --keyspace --persistor --persistor-path --use --force --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context set') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context unset') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context rename') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context use') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context list') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context show') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'context remove') subcommands='' flags='--yes --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'status') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock') subcommands='serve tokens outbox requests devices messages console capture record ca faults reset state' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock serve') subcommands='' flags='--host --port --seed --state --dev-token --latency --fault --json --ready-file --no-context --no-log --no-cors --no-console --tls --tls-name --tls-cert --tls-key --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock tokens') subcommands='' flags='--user --keyspace --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock outbox') subcommands='' flags='--to --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock requests') subcommands='show' flags='--follow --tail --admin --bodies --interval --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock requests show') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock devices') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock messages') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock console') subcommands='' flags='--print --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock capture') subcommands='' flags='--out --force --concurrency --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock record') subcommands='' flags='--target --host --port --out --force --json --ready-file --no-context --no-log --profiles --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock ca') subcommands='' flags='--pem --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock faults') subcommands='list set clear' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock faults list') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock faults set') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock faults clear') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock reset') subcommands='' flags='--yes --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock state') subcommands='check recover' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock state check') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'mock state recover') subcommands='' flags='--to --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'conformance') subcommands='' flags='--write --yes --junit --replay --seed --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'api') subcommands='' flags='--query --header --input --include --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'completion') subcommands='' flags='--help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
    'demo') subcommands='' flags='--keep --no-pause --help --context --base-url --token-file --output --ca-file --no-input --debug --timeout --quiet --wide --no-pager' ;;
  esac
  if [[ "$2" == -* ]]; then echo "$flags"; else echo "$subcommands"; fi
}

# Names looked up live (markings from the service, contexts, profiles); silent when they cannot be.
# A line that begins with a tab is a hint (more names than shown): offered as it is, never alone.
_ksctl_names() {
  local name
  while IFS= read -r name; do
    if [[ "$name" == $'\t'* ]]; then COMPREPLY+=("${name#$'\t'}")
    elif [[ -n "$name" ]]; then COMPREPLY+=("$(printf '%q' "$name")"); fi
  done < <("${COMP_WORDS[0]}" __complete "$1" ${_ksctl_context:+--context "$_ksctl_context"} ${2:+--marking "$2"} -- "$cur" 2>/dev/null)
}

_ksctl_complete() {
  case "$1" in
    'choice '*) COMPREPLY=($(compgen -W "${1#choice }" -- "$cur")) ;;
    'name '*) _ksctl_names "${1#name }" "$2" ;;
    # As file names: a directory gets its "/" and no space after it, so the path goes on.
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
  esac
}

_ksctl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i next spec pending=""
  local _ksctl_context="" args=()
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if [[ -n "$pending" ]]; then
      # The value of the flag before (with "=" a word of its own, as bash splits --flag=value).
      [[ "$w" == "=" ]] && continue
      [[ "$pending" == --context ]] && _ksctl_context="$w"
      pending=""
      continue
    fi
    if [[ "$w" == -* ]]; then
      _ksctl_option "$path" "$w" >/dev/null && pending="$w"
      continue
    fi
    if next="$(_ksctl_path "$path" "$w")"; then path="$next"; else args+=("$w"); fi
  done
  # The word is a flag's value: after "--flag " or "--flag=".
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  [[ "$prev" == "=" && $COMP_CWORD -ge 2 ]] && prev="${COMP_WORDS[COMP_CWORD-2]}"
  [[ "$cur" == "=" ]] && cur=""
  if [[ "$prev" == -* ]] && spec="$(_ksctl_option "$path" "$prev")"; then
    _ksctl_complete "$spec" "${args[0]}"
    return
  fi
  if [[ "$cur" != -* ]] && spec="$(_ksctl_argument "$path" "${#args[@]}")"; then
    _ksctl_complete "$spec" "${args[0]}"
    return
  fi
  COMPREPLY=($(compgen -W "$(_ksctl_words "$path" "$cur")" -- "$cur"))
}

complete -F _ksctl ksctl
