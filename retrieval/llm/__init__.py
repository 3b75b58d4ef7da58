"""The language model: the chat client with its retries (`client`), reading and repairing what the model sends
back (`response`) and the JSON schemas of the structured replies asked for (`json_schema`)."""
