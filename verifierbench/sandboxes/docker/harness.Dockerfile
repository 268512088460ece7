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
USER agent
