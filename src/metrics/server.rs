//! The `/metrics` endpoint: one route on a small HTTP server in a background thread.

use std::sync::Weak;

use super::Exporter;

/// Binds `addr` (`ADDR:PORT`); an address that cannot be bound is bad input.
pub(super) fn bind(addr: &str) -> anyhow::Result<tiny_http::Server> {
    match tiny_http::Server::http(addr) {
        Ok(server) => Ok(server),
        Err(e) => crate::bad_input!(
            "--metrics-listen {addr}: cannot listen there ({e}); give ADDR:PORT of a free local port, e.g. 127.0.0.1:9477"
        ),
    }
}

/// Answers `GET /metrics` with the exposition text, anything else with 404, until the process
/// ends (or the exporter is gone).
pub(super) fn serve(http: tiny_http::Server, exporter: Weak<Exporter>) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            for request in http.incoming_requests() {
                let Some(exporter) = exporter.upgrade() else {
                    break;
                };
                let path = request.url().split('?').next().unwrap_or("");
                let response = if path == "/metrics" {
                    tiny_http::Response::from_string(exporter.encode()).with_header(
                        tiny_http::Header::from_bytes(
                            "Content-Type",
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        )
                        .expect("static header"),
                    )
                } else {
                    tiny_http::Response::from_string("ssdfade: metrics are on /metrics\n")
                        .with_status_code(404)
                };
                // A scraper that hung up is its own problem.
                let _ = request.respond(response);
            }
        })?;
    Ok(())
}
