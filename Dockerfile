# minidump-stackwalk as a static binary in a minimal image (docs/ci.md):
#   docker build -t minidump-stackwalk .
#   docker run --rm -v "$PWD:/work" -w /work minidump-stackwalk crash.dmp symbols/
# The build stage's go build line is tested without docker
# (TestDockerfileBuildsStaticBinary): CGO_ENABLED=0 makes a binary with no
# dynamic loader and no libc, which the distroless static image runs.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# minidump-stackwalk-fetch makes the symbol servers' and debuginfod's
# HTTPS requests; minidump-stackwalk runs it from its own directory.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ ./cmd/minidump-stackwalk ./cmd/minidump-stackwalk-fetch

# CA certificates (symbol servers over https), /tmp, and a non-root user
# whose home holds the symbol cache; nothing else.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/minidump-stackwalk /out/minidump-stackwalk-fetch /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/minidump-stackwalk"]
