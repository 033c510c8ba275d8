"""An MCP server for the tests of tool schemas as pydantic writes them, written with the official
Python SDK: its tools take pydantic models, so their input schemas hold the models under `$defs`
and use them through `{"$ref": "#/$defs/NAME"}`, as most Python servers' do.

    python models_server.py

Its tools: `weather` (a `Location` and a `Unit`) and `plan_trip` (a list of `Stop`s, each with a
`Location`, and an optional `Location`), each returning its arguments as JSON.
"""
import enum
from typing import Optional

from pydantic import BaseModel, Field

from mcp.server.mcpserver import MCPServer

server = MCPServer("models")


class Unit(str, enum.Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


class Location(BaseModel):
    city: str
    country: Optional[str] = None


class Stop(BaseModel):
    location: Location
    minutes: int = Field(ge=0, le=600)


@server.tool()
def weather(location: Location, unit: Unit = Unit.celsius) -> str:
    """The weather at a place."""
    return '{"location": %s, "unit": "%s"}' % (location.model_dump_json(), unit.value)


@server.tool()
def plan_trip(stops: list[Stop], back: Optional[Location] = None) -> str:
    """Plans a trip."""
    return '{"stops": [%s], "back": %s}' % (", ".join(stop.model_dump_json() for stop in stops),
                                           back.model_dump_json() if back else "null")


if __name__ == "__main__":
    server.run()
