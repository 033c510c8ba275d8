-- Tests of tool-allow (tide plugins test Plugins/tool-allow_test.lua): only the tools listed run,
-- with arguments that match their rules and paths that stay inside the folder; the rest is refused.

-- The folder need not exist: what does not exist resolves as written, the same on every machine.
local folder = "/tide-test-nowhere/project"

describe("tool-allow", function()
  describe("tools", function()
    it("runs the tools listed and refuses the rest", function()
      local plugin = harness.plugin{ tools = "git__git_status,git__git_log" }
      assert.same({ run = true }, plugin:tool_call{ name = "git__git_log", arguments = {}, provider = "mcp:git" })
      assert.same(
        { refuse = "git__git_commit is not among the tools allowed here (git__git_status,git__git_log)" },
        plugin:tool_call{ name = "git__git_commit", arguments = {}, provider = "mcp:git" }
      )
    end)

    it("reads * as any run of characters", function()
      local plugin = harness.plugin{ tools = "time__*" }
      assert.same({ run = true }, plugin:tool_call{ name = "time__now", arguments = {} })
      assert.truthy(plugin:tool_call{ name = "time_now", arguments = {} }.refuse)
    end)

    it("refuses every tool when none is listed", function()
      local result = harness.plugin():tool_call{ name = "convert", arguments = {} }
      assert.same({ refuse = "convert is not among the tools allowed here ()" }, result)
    end)
  end)

  describe("arguments", function()
    local plugin
    before_each(function()
      plugin = harness.plugin{ tools = "git__git_log", arguments = "branch~^[%w_/]+$;max_count~^%d+$" }
    end)

    it("runs a call whose arguments match", function()
      assert.same({ run = true }, plugin:tool_call{ name = "git__git_log", arguments = { branch = "main", max_count = 5 } })
    end)

    it("refuses an argument that does not match", function()
      assert.same(
        { refuse = "argument branch does not match ^[%w_/]+$" },
        plugin:tool_call{ name = "git__git_log", arguments = { branch = "--all" } }
      )
      assert.same(
        { refuse = "argument max_count does not match ^%d+$" },
        plugin:tool_call{ name = "git__git_log", arguments = { max_count = 2.5 } }
      )
    end)

    it("lets an argument that is not given pass", function()
      assert.same({ run = true }, plugin:tool_call{ name = "git__git_log", arguments = {} })
    end)

    it("refuses arguments that are not a JSON object", function()
      local result = plugin:tool_call{ name = "git__git_log", arguments = "branch=main" }
      assert.same({ refuse = "the arguments are not a JSON object" }, result)
    end)
  end)

  describe("folder", function()
    local plugin
    before_each(function()
      plugin = harness.plugin{ tools = "read_file,write_file,search", folder = folder, text = "content" }
    end)

    it("runs a relative path as the full path inside the folder", function()
      local result = plugin:tool_call{ name = "read_file", arguments = { path = "notes/./today.txt" } }
      assert.same({ arguments = { path = folder .. "/notes/today.txt" } }, result)
    end)

    it("runs an absolute path inside the folder as it is", function()
      assert.same({ run = true }, plugin:tool_call{ name = "read_file", arguments = { path = folder .. "/a/b.txt" } })
    end)

    it("refuses paths that lead outside", function()
      for _, path in ipairs{ "/etc/passwd", "../secret", "notes/../../secret" } do
        local result = plugin:tool_call{ name = "read_file", arguments = { path = path } }
        assert.equals("argument path (" .. path .. ") is outside " .. folder, result.refuse)
      end
    end)

    it("refuses a path that leads outside once decoded", function()
      local cases = {
        ["%2e%2e/secret"] = "../secret",
        ["..\\secret"] = "../secret",
        ["‥/secret"] = "../secret",
        ["file:///etc/passwd"] = "/etc/passwd",
      }
      for path, read_as in pairs(cases) do
        local result = plugin:tool_call{ name = "read_file", arguments = { path = path } }
        assert.equals("argument path (" .. path .. ", read as " .. read_as .. ") is outside " .. folder, result.refuse)
      end
    end)

    it("refuses what a server may expand", function()
      local home = plugin:tool_call{ name = "read_file", arguments = { path = "~/notes.txt" } }
      assert.matches("starts with ~", home.refuse)
      local variable = plugin:tool_call{ name = "read_file", arguments = { path = "$HOME/notes.txt" } }
      assert.matches("starts with a variable", variable.refuse)
    end)

    it("reads every argument as a path, but those named in text", function()
      local search = plugin:tool_call{ name = "search", arguments = { query = "../secret" } }
      assert.equals("argument query (../secret) is outside " .. folder, search.refuse)
      local write = plugin:tool_call{ name = "write_file", arguments = { path = "out.txt", content = "see ../secret" } }
      assert.same({ arguments = { path = folder .. "/out.txt", content = "see ../secret" } }, write)
    end)

    it("reads the value of an option as a path", function()
      local result = plugin:tool_call{ name = "search", arguments = { flags = { "--output=/etc/x" } } }
      assert.equals("argument flags (--output=/etc/x, read as /etc/x) is outside " .. folder, result.refuse)
    end)

    it("wants absolute paths in a list of paths", function()
      local relative = plugin:tool_call{ name = "search", arguments = { paths = { "a.txt" } } }
      assert.equals("argument paths: a path in a list or table must be absolute, not a.txt", relative.refuse)
      assert.same({ run = true }, plugin:tool_call{ name = "search", arguments = { paths = { folder .. "/a.txt" } } })
    end)
  end)

  describe("misconfigured", function()
    it("refuses every call over a rule that is not NAME~PATTERN", function()
      local result = harness.plugin{ tools = "read", arguments = "branch" }:tool_call{ name = "read", arguments = {} }
      assert.equals("tool-allow is misconfigured: its option arguments is not NAME~PATTERN;…: 'branch'", result.refuse)
    end)

    it("refuses every call over a relative folder", function()
      local result = harness.plugin{ tools = "read", folder = "project" }:tool_call{ name = "read", arguments = {} }
      assert.equals("tool-allow is misconfigured: its option folder must be an absolute path, not 'project'", result.refuse)
    end)
  end)
end)
