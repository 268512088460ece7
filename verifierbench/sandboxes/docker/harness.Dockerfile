# The sandbox image of the alternative harnesses (`-T harness=claude_code|codex_cli|... -T sandbox=docker`): the
# default sandbox image (Dockerfile) plus the harnesses' CLIs, which scripts/harness-clis.sh fetched from the
# package registries on the host at pinned versions. Nothing is downloaded here or at run time: the build context
# is the script's cache directory, and inspect-swe finds each CLI on $PATH (`version="sandbox"`).
ARG SANDBOX_IMAGE=verifierbench-sandbox:harness-base
FROM ${SANDBOX_IMAGE}
USER root
# curl (inspect-swe's probe of the bridged tools) and the libraries it needs, as Debian packages fetched on the host.
COPY debs/ /var/cache/vgb-debs/
RUN dpkg -i /var/cache/vgb-debs/*.deb && rm -rf /var/cache/vgb-debs
COPY bin/ /usr/local/bin/
# mini-swe-agent from its wheels, by pip run from its own wheel (the image has no pip).
COPY wheels/ /var/cache/vgb-wheels/
RUN set -- /var/cache/vgb-wheels/pip-*.whl && python3 "$1/pip" install --quiet --no-index --no-cache-dir \
      --break-system-packages --find-links /var/cache/vgb-wheels mini-swe-agent && rm -rf /var/cache/vgb-wheels && \
    mini --help >/dev/null
# Gemini CLI where inspect-swe looks for it (INSPECT_SWE_DIR/gemini-cli), run by the node copied into bin/.
COPY gemini-cli/ /opt/gemini-cli/
ARG INSPECT_SWE_DIR
RUN test -n "$INSPECT_SWE_DIR" && mkdir -p "$INSPECT_SWE_DIR" && ln -s /opt/gemini-cli "$INSPECT_SWE_DIR/gemini-cli" && \
    chown agent "$INSPECT_SWE_DIR" && node --version && node /opt/gemini-cli/node_modules/.bin/gemini --version
# Pi (the paper's common harness) on $PATH, run by the same node.
COPY pi/ /opt/pi/
RUN ln -s /opt/pi/node_modules/@earendil-works/pi-coding-agent/dist/cli.js /usr/local/bin/pi && \
    PI_OFFLINE=1 PI_TELEMETRY=0 HOME=/tmp pi --version
# OpenClaw (its embedded agent, `openclaw agent --local`), run by the same node.
COPY openclaw/ /opt/openclaw/
RUN ln -s /opt/openclaw/node_modules/openclaw/openclaw.mjs /usr/local/bin/openclaw && HOME=/tmp openclaw --version
# Gemini CLI's system settings (they override the user settings inspect-swe writes): no web_fetch or
# google_web_search tool, since the container has no network.
COPY gemini-system-settings.json /etc/gemini-cli/settings.json
# vgb_env also for Python processes whose PYTHONPATH a harness replaces (mini-swe-agent sets its own).
RUN echo /opt/vgb/lib > "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/vgb_env.pth"
USER agent
