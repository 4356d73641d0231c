"""Checking an assistant's drafted answer against the knowledge base: its claims (`claims`),\neach one's verdict from the units (`check`)."""
