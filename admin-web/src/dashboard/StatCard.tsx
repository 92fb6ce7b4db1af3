import { Box, Card, Typography } from '@mui/material';
import type { ComponentType, ReactNode } from 'react';

export interface StatCardProps {
    icon: ComponentType<{ fontSize?: 'large' }>;
    title: string;
    value: ReactNode;
    testId: string;
    /** Small lines under the value: how it is computed, as of when. */
    notes?: ReactNode[];
}

/** A small summary card, as in react-admin's demo dashboard. */
export const StatCard = ({ icon: Icon, title, value, testId, notes = [] }: StatCardProps) => (
    <Card sx={{ display: 'flex', alignItems: 'center', gap: 2, p: 2 }} data-testid={testId}>
        <Box sx={{ color: 'primary.main', display: 'flex' }}>
            <Icon fontSize="large" />
        </Box>
        <Box sx={{ minWidth: 0 }}>
            <Typography variant="body2" color="text.secondary">
                {title}
            </Typography>
            <Typography variant="h5" component="p" data-testid={`${testId}-value`}>
                {value}
            </Typography>
            {notes.map((note, index) => (
                <Typography key={index} variant="caption" color="text.secondary" component="p">
                    {note}
                </Typography>
            ))}
        </Box>
    </Card>
);
