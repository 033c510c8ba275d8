/// The style and the script of the HTML report (``HTMLReport``), written into the page itself:
/// the page loads nothing.
enum HTMLReportAssets {
    static let style = """
        :root { --pass: #1a7f37; --fail: #cf222e; --error: #9a6700; --line: #d0d7de; --soft: #f6f8fa; }
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 16px 48px; color: #1f2328; }
        header h1 { margin: 16px 0 4px; font-size: 22px; }
        .meta { color: #656d76; margin: 0 0 8px; }
        nav#filters { position: sticky; top: 0; background: #fff; border-bottom: 1px solid var(--line); padding: 8px 0; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; z-index: 1; }
        #shown { color: #656d76; }
        table { border-collapse: collapse; margin: 12px 0; }
        th, td { border: 1px solid var(--line); padding: 3px 10px; text-align: left; }
        thead th { background: var(--soft); }
        tbody th { font-weight: normal; font-family: ui-monospace, monospace; font-size: 13px; }
        td.pass { background: #dafbe1; } td.fail { background: #ffebe9; } td.error { background: #fff8c5; }
        td a, th a { color: inherit; text-decoration: none; }
        tr.fail th a, tr.error th a { color: var(--fail); }
        tfoot th, tfoot td { background: var(--soft); font-weight: 600; }
        #baseline tr.fail td { background: #ffebe9; } #baseline tr.pass td { background: #dafbe1; } strong.fail { color: var(--fail); }
        article.case { border-top: 1px solid var(--line); padding: 4px 0 12px; }
        article.case h2 { font: 600 15px ui-monospace, monospace; margin: 12px 0 4px; }
        article.case h2 a { color: inherit; }
        section.run { border-left: 4px solid var(--pass); padding: 2px 0 2px 12px; margin: 8px 0; }
        section.run.fail { border-color: var(--fail); } section.run.error { border-color: var(--error); }
        section.run h3 { font-size: 14px; margin: 4px 0; }
        .badge { font-weight: normal; padding: 0 6px; border-radius: 8px; background: var(--soft); }
        .time { color: #656d76; font-weight: normal; font-size: 12px; }
        pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; font: 13px/1.4 ui-monospace, monospace; background: var(--soft); padding: 4px 8px; border-radius: 4px; }
        pre.error { background: #fff8c5; }
        .role { display: block; color: #656d76; font-size: 12px; }
        .turn.assistant pre { background: #eef6ff; }
        .tools { border: 1px dashed var(--line); padding: 4px 8px; margin: 4px 0; }
        .tools code { display: block; font-size: 12px; }
        .reasoning summary { color: #656d76; cursor: pointer; }
        del { background: #ffebe9; color: #82071e; } ins { background: #dafbe1; color: #116329; text-decoration: none; }
        .forcing { margin: 2px 0; font-size: 13px; }
        .forcing.confirmed { color: var(--pass); } .forcing.near-ties { color: var(--error); } .forcing.regenerated, .forcing.skipped { color: #8250df; }
        ul.checks { list-style: none; padding: 0; margin: 4px 0; }
        li.check .mark { display: inline-block; width: 1em; font-weight: 700; }
        li.check.pass .mark { color: var(--pass); } li.check.fail .mark { color: var(--fail); }
        li.check.fail { background: #fff5f5; }
        .detail { color: var(--fail); } .reason, .measure { color: #656d76; }
        .stats { color: #656d76; font-size: 12px; margin: 2px 0 8px; }
        [hidden] { display: none !important; }
        """

    static let script = """
        (function () {
          var failedOnly = document.getElementById("filter-failed");
          var targetFilter = document.getElementById("filter-target");
          var checkFilter = document.getElementById("filter-check");
          var shown = document.getElementById("shown");
          var rows = Array.prototype.slice.call(document.querySelectorAll("#matrix tbody tr"));
          var columns = document.querySelectorAll("#matrix [data-target]");
          function apply() {
            var target = targetFilter.value, check = checkFilter.value, failed = failedOnly.checked, count = 0;
            for (var i = 0; i < columns.length; i++) columns[i].hidden = target !== "" && columns[i].dataset.target !== target;
            rows.forEach(function (row) {
              var article = document.getElementById(row.dataset.case);
              var runs = article.querySelectorAll("section.run"), visible = false;
              for (var j = 0; j < runs.length; j++) {
                var run = runs[j], checks = run.dataset.checks.split(" ");
                var show = (target === "" || run.dataset.target === target)
                  && (!failed || !run.classList.contains("pass"))
                  && (check === "" || checks.indexOf(failed ? check + "!" : check) >= 0 || (failed && run.classList.contains("error")));
                run.hidden = !show;
                visible = visible || show;
              }
              var items = article.querySelectorAll("li.check");
              for (var k = 0; k < items.length; k++) {
                items[k].hidden = (check !== "" && items[k].dataset.check !== check) || (failed && items[k].classList.contains("pass"));
              }
              row.hidden = !visible;
              article.hidden = !visible;
              if (visible) count++;
            });
            shown.textContent = count + " of " + rows.length + " cases shown";
          }
          // The filters live in the address too (#failed-only&target=NAME&check=NAME), so a link opens them.
          function remember() {
            var parts = [];
            if (failedOnly.checked) parts.push("failed-only");
            if (targetFilter.value) parts.push("target=" + encodeURIComponent(targetFilter.value));
            if (checkFilter.value) parts.push("check=" + encodeURIComponent(checkFilter.value));
            history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname + location.search);
          }
          location.hash.replace(/^#/, "").split("&").forEach(function (part) {
            var pair = part.split("="), value = "";
            try { value = decodeURIComponent(pair[1] || ""); } catch (error) { return; }
            if (pair[0] === "failed-only") failedOnly.checked = true;
            if (pair[0] === "target") targetFilter.value = value;
            if (pair[0] === "check") checkFilter.value = value;
          });
          [failedOnly, targetFilter, checkFilter].forEach(function (input) {
            input.addEventListener("change", function () { apply(); remember(); });
          });
          apply();
          document.documentElement.dataset.readyMs = Math.round(performance.now());
        })();
        """
}
