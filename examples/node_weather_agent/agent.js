#!/usr/bin/env node
// A weather agent in Node.js, evaluated with `--agent "cmd:node examples/node_weather_agent/agent.js"`.
//
// evalkit's subprocess protocol (docs/agents.md, "Subprocess agents"): one JSON request per
// line on stdin, one JSON reply per line on stdout. stdout carries only replies, so logs go
// to stderr (console.error): a console.log line would break the protocol. One process
// serves many sessions, one request at a time, so memory is kept per session_id.
"use strict";
const readline = require("readline");

const FORECASTS = {
  paris: { condition: "sunny", temperature_c: 24 },
  london: { condition: "rainy", temperature_c: 16 },
  tokyo: { condition: "cloudy", temperature_c: 21 },
  rome: { condition: "sunny", temperature_c: 28 },
};
const lastCity = new Map(); // session_id -> the city the user asked about last

function getWeather(city) {
  return FORECASTS[city.toLowerCase()] || { condition: "unknown", temperature_c: null };
}

function findCity(text) {
  const city = Object.keys(FORECASTS).find((name) => new RegExp(`\\b${name}\\b`, "i").test(text));
  return city ? city[0].toUpperCase() + city.slice(1) : null;
}

function answer(turn) {
  const city = findCity(turn.user_text) || lastCity.get(turn.session_id);
  if (!city) {
    return "Which city would you like the weather for?"; // a plain string: the final response, no tools
  }
  lastCity.set(turn.session_id, city);
  const args = { city };
  // The eval case's fake of the tool, when it has one; else the real tool.
  const forecast = "get_weather" in turn.tool_mocks ? turn.tool_mocks.get_weather : getWeather(city);
  return {
    final_response: `It is ${forecast.condition} in ${city} today, ${forecast.temperature_c}°C.`,
    tool_calls: [{ name: "get_weather", args }],
    tool_responses: [{ name: "get_weather", response: forecast }],
  };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  if (request.type === "end_session") {
    lastCity.delete(request.session_id); // needs no reply
    return;
  }
  console.error(`turn ${request.invocation_index} of ${request.case_id}: ${request.user_text}`);
  // Every reply is one line of JSON: an object, or a string written as a JSON string.
  process.stdout.write(JSON.stringify(answer(request)) + "\n");
});
