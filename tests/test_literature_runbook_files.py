"""The /math:literature command, its agent and protocols agree with each other and the scripts."""

from __future__ import annotations

import re

from conftest import PLUGIN, ROOT, SCRIPTS
from mathtools.core import frontmatter

COMMAND = PLUGIN / "commands" / "literature.md"
AGENT = PLUGIN / "agents" / "literature-search.md"
PROTOCOL = PLUGIN / "protocols" / "literature-protocol.md"
TIERS = PLUGIN / "protocols" / "confidence-tiers.md"
RULE = re.compile(r'^Bash\(python3 "\$\{CLAUDE_PLUGIN_ROOT\}/scripts/([a-z_0-9]+\.py)":\*\)$')


# The runbook's own writes: its search folders, and LITERATURE.md when an older REF's assessment
# changes (an Edit rule covers Write); and its one read, the protocol's section an error names
# (an absolute path takes `//`: tests/test_protocol_reads_e2e.py reads it in the real host).
FILE_RULES = [
    "Edit(.math/problems/*/literature-runs/**)",
    "Edit(.math/problems/*/LITERATURE.md)",
    "Read(/${CLAUDE_PLUGIN_ROOT}/protocols/*)",
]


def allowed_scripts() -> list[str]:
    meta = frontmatter.read_frontmatter(COMMAND.read_text(encoding="utf-8"))
    rules = [rule.strip() for rule in meta["allowed-tools"].split(", ")]
    scripts = [rule for rule in rules if rule not in FILE_RULES]
    matches = [RULE.match(rule) for rule in scripts]
    assert all(matches), f"a rule broader than one plugin script or the runbook's files: {rules}"
    return [m.group(1) for m in matches]


def test_the_command_pre_approves_exactly_the_scripts_the_agent_calls():
    agent_body = AGENT.read_text(encoding="utf-8")
    called = set(
        re.findall(r'python3 "\$\{CLAUDE_PLUGIN_ROOT\}/scripts/([a-z_0-9]+\.py)"', agent_body)
    )
    assert set(allowed_scripts()) == called
    assert all((SCRIPTS / name).exists() for name in called)


def test_the_runbook_player_calls_only_approved_scripts():
    player = (ROOT / "tools" / "literature_runbook.py").read_text(encoding="utf-8")
    used = set(re.findall(r'Script\(\s*"([a-z_0-9]+\.py)"', player))
    assert used and used <= set(allowed_scripts())


def test_the_command_has_a_description_an_argument_hint_and_hands_off_to_the_agent():
    meta, body = frontmatter.split_frontmatter(COMMAND.read_text(encoding="utf-8"))
    assert meta["description"] and meta["argument-hint"] == "[problem-slug] [focus ...]"
    assert "math:literature-search" in body and "$ARGUMENTS" in body
    # The problem is the script's to find (a slug first, else the current problem): neither the
    # command nor its agent reads .math/config.json, which may hold the API key.
    assert ".math/config.json" not in body
    agent = AGENT.read_text(encoding="utf-8")
    assert agent.count(".math/config.json") == 1 and "never read `.math/config.json`" in " ".join(
        agent.split()
    )


def test_the_agent_lists_its_tools_and_keeps_files_out_of_the_plugin_folder():
    meta, body = frontmatter.split_frontmatter(AGENT.read_text(encoding="utf-8"))
    assert meta["name"] == "literature-search"
    assert {tool.strip() for tool in meta["tools"].split(",")} == {"Bash", "Read", "Write", "Edit"}
    folder_model = PLUGIN / "scripts" / "mathtools" / "search" / "searchfolder.py"
    assert "literature-runs/" in folder_model.read_text()
    assert "Never write into the plugin folder" in " ".join(body.split())
    # A normal run reads no protocol: the steps spell out what they need (the speculative-steps
    # warning is the scripts'); the protocol is named once, for an error that leaves it unsure.
    for step in range(1, 9):
        assert re.search(rf"^## {step}\. ", body, re.M), f"step {step} is missing"
    assert body.count("protocols/") == 1 and "Only when an error" in body
    assert "confidence-tiers.md" not in body


def test_the_protocol_has_its_ten_sections_and_names_scripts_not_urls():
    text = PROTOCOL.read_text(encoding="utf-8")
    for number in range(1, 11):
        assert re.search(rf"^## {number}\. ", text, re.M), f"section {number} missing"
    assert "curl -" not in text and "api/query?" not in text and "graph/v1/paper/" not in text
    assert "[docs/matching-rules.md](../../docs/matching-rules.md)" in text
    assert (PROTOCOL.parent / "../../docs/matching-rules.md").exists()


def test_the_speculative_warning_finish_inserts_is_the_protocols():
    from mathtools.litdoc.checks import SPECULATIVE_WARNING

    block = SPECULATIVE_WARNING.format(steps="{list of step or claim numbers}")
    assert block in TIERS.read_text(encoding="utf-8")
